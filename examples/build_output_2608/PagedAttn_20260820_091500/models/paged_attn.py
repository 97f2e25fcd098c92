# COMPOSED for ptune's examples by examples/compose.py (not a captured file).
# Paged attention decode, one query block against the paged KV cache, written in the style of
# the pypto-lib models. perf_hints.log and the memory report of the example run describe it.
import pypto.language as pl

BLOCK = 64
HEAD_DIM = 128
K_TILE = 64  # PH001: a b_trans Mat load of 128 B rows; 256 (512 B rows) would fill the line


@pl.function(core="aic")
def QK(q: pl.Tensor[[BLOCK, HEAD_DIM], pl.BF16], k_cache: pl.Tensor[[HEAD_DIM, HEAD_DIM], pl.BF16],
       scores: pl.Out[pl.Tensor[[BLOCK, HEAD_DIM], pl.FP32]]):
    q_tile = pl.load(q, [0, 0], [BLOCK, HEAD_DIM], target_memory=pl.Mat)
    for k0 in pl.pipeline(0, HEAD_DIM, K_TILE, stage=2):
        k_tile = pl.load(k_cache, [0, k0], [HEAD_DIM, K_TILE], target_memory=pl.Mat, b_trans=True)  # @QK.k_load
        acc = pl.matmul(q_tile, k_tile)
        pl.store(scores, [0, k0], acc)


@pl.function(core="aiv")
def SF(scores: pl.Tensor[[BLOCK, HEAD_DIM], pl.FP32], probs: pl.Out[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.BF16]]):
    for r0 in pl.pipeline(0, BLOCK, 16, stage=4):
        row = pl.load(scores, [r0, 0], [16, HEAD_DIM])  # @SF.row_load
        m = pl.row_max(row)
        e = pl.exp(row - m)
        pl.store(probs, [r0, 0], pl.cast(e / pl.row_sum(e), pl.BF16))


@pl.function(core="aic")
def PV_cube(probs: pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.BF16], v_cache: pl.Tensor[[2 * HEAD_DIM, HEAD_DIM], pl.BF16],
            out: pl.InOut[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.FP32]]):
    p = pl.load(probs, [0, 0], [BLOCK, 2 * HEAD_DIM], target_memory=pl.Mat)
    v = pl.load(v_cache, [0, 0], [2 * HEAD_DIM, HEAD_DIM], target_memory=pl.Mat)
    pl.store(out, [0, 0], pl.matmul(p, v))


@pl.function(core="aiv")
def PV_vec(out: pl.InOut[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.FP32]]):
    pl.store(out, [0, 0], pl.load(out, [0, 0], [BLOCK, 32]) * 0.5)  # @PV_vec.rescale


@pl.function(core="aiv")
def UP(x: pl.Tensor[[BLOCK, HEAD_DIM], pl.BF16], cache: pl.Tensor[[BLOCK, HEAD_DIM], pl.BF16],
       out: pl.Out[pl.Tensor[[BLOCK, 2 * HEAD_DIM], pl.BF16]]):
    pl.store(out, [0, 0], pl.load(x, [0, 0], [BLOCK, HEAD_DIM]))  # @UP.x
    pl.store(out, [0, HEAD_DIM], pl.load(cache, [0, 0], [BLOCK, HEAD_DIM]))  # @UP.cache
