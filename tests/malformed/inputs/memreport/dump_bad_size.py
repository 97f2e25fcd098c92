# pypto.program: Peak
import pypto.language as pl

@pl.program
class Peak:
    @pl.function(type=pl.FunctionType.AIV)
    def peak_aiv(self, a: pl.Tensor[[32, 128], pl.FP32], out: pl.Tensor[[32, 128], pl.FP32]) -> pl.Tensor[[32, 128], pl.FP32]:
        a_vec: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_0, pl.const(0, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 128], target_memory=pl.Mem.Vec)
        b_vec: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_1, pl.const(16384, pl.INT64), 16384), pl.Mem.Vec] = pl.tile.exp(a_vec)
        c_vec: pl.Tile[[32, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(32768, pl.INT64), 8l92), pl.Mem.Vec] = pl.tile.add(a_vec, b_vec)
        d_vec: pl.Tile[[32, 128], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 12288), pl.Mem.Vec] = pl.tile.mul(b_vec, c_vec)
        out_1: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(d_vec, [0, 0], out)
        return out_1
