# pypto.program: Demo
import pypto.language as pl

@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.AIC)
    def attn_aic(self, q: pl.Tensor[[64, 128], pl.BF16], k: pl.Tensor[[128, 128], pl.BF16], s: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        q_mat: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_mat_0, pl.const(0, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.load(q, [0, 0], [64, 128], target_memory=pl.Mem.Mat)
        k_mat: pl.Tile[[128, 128], pl.BF16, pl.MemRef(mem_mat_1, pl.const(16384, pl.INT64), 32768), pl.Mem.Mat] = pl.tile.load(k, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        k_half: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_mat_1, pl.const(16384, pl.INT64), 16384), pl.Mem.Mat] = pl.tile.slice(k_mat, [0, 0], [64, 128])
        q_left: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_left_0, pl.const(0, pl.INT64), 16384), pl.Mem.Left] = pl.tile.move(q_mat, target_memory=pl.Mem.Left)
        k_right: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_right_0, pl.const(0, pl.INT64), 16384), pl.Mem.Right] = pl.tile.move(k_half, target_memory=pl.Mem.Right)
        s_acc: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_acc_0, pl.const(0, pl.INT64), 32768), pl.Mem.Acc] = pl.tile.matmul(q_left, k_right)
        s_1: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(s_acc, [0, 0], s)
        return s_1
    @pl.function(type=pl.FunctionType.AIV)
    def attn_aiv(self, s: pl.Tensor[[64, 128], pl.FP32], bias: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(106496, pl.INT64), 16384), pl.Mem.Vec], out: pl.Tensor[[64, 128], pl.BF16]) -> pl.Tensor[[64, 128], pl.BF16]:
        s_vec: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_0, pl.const(8192, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.load(s, [0, 0], [64, 128], target_memory=pl.Mem.Vec)
        t_vec: pl.Tile[[64, 128], pl.FP32, pl.MemRef(mem_vec_1, pl.const(40960, pl.INT64), 32768), pl.Mem.Vec] = pl.tile.add(s_vec, bias)
        row_max: pl.Tile[[64, 1], pl.FP32, pl.MemRef(mem_vec_2, pl.const(73728, pl.INT64), 256), pl.Mem.Vec] = pl.tile.row_max(t_vec)
        o_vec: pl.Tile[[64, 128], pl.BF16, pl.MemRef(mem_vec_0, pl.const(8192, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.cast(t_vec, row_max, target_type=pl.BF16)
        out_1: pl.Tensor[[64, 128], pl.BF16] = pl.tile.store(o_vec, [0, 0], out)
        return out_1
    @pl.function(type=pl.FunctionType.AIV)
    def scale_aiv(self, x: pl.Tensor[[1, 4], pl.FP32]) -> pl.Tensor[[1, 4], pl.FP32]:
        x_vec: pl.Tile[[1, 4], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [1, 4], target_memory=pl.Mem.Vec)
        x_1: pl.Tensor[[1, 4], pl.FP32] = pl.tile.store(x_vec, [0, 0], x)
        return x_1
    @pl.function(type=pl.FunctionType.InCore)
    def copy_incore(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.view(x, [16, 16], [0, 0])
        return y
    @pl.function(type=pl.FunctionType.Orchestration)
    def demo(self, q: pl.Tensor[[64, 128], pl.BF16]) -> pl.Tensor[[64, 128], pl.BF16]:
        out_1 = self.attn_aiv(q)
        return out_1
