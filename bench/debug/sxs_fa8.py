# FlashAttention 128x128 / 256 threads in 3 stages (session 8): with
# O_shared sharing Q_shared's storage (tile-share-storage) three K/V stages
# fit in the 227 KiB a block may use (230400 bytes). Same source as the
# fa_4096_b128 case of ../shared/sxs/prepare.py, one -D more.
BSHD = "4*Q[0]*Q[1]*Q[1]*Q[2]*Q[3]"  # as in ../shared/sxs/prepare.py
FA = dict(group="attention", unit="TFLOP/s", tl_returns=True, ref="flash_attention")
CASES = [
    ("fa_4096_b128_s3", "ex:flash_attention.tile", "flash_attention",
     {"block_M": 128, "block_N": 128, "threads": 256, "num_stages": 3}, ["Output"],
     dict(FA, work=BSHD)),
    ("fa_4096_b128_s3_causal", "ex:flash_attention.tile", "flash_attention",
     {"block_M": 128, "block_N": 128, "threads": 256, "num_stages": 3, "is_causal": True},
     ["Output"], dict(FA, work=BSHD + "/2")),
]
