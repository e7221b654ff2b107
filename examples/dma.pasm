# DMA: 1-D, 2-D and 3-D strided copies between HBM (data-NoC 0x0..) and the scratchpad
# (data-NoC 0x4000000000, 8 MiB). Input: a 16 x 16 fp32 matrix M at HBM 0x10000 (row = 64 bytes).
# A copy moves, for i2 < n2, i1 < n1: inner_bytes from src + i2*src_stride2 + i1*src_stride1 to
# dst + i2*dst_stride2 + i1*dst_stride1 (strides in bytes).
.op 0 "dma_demo" Copy "1-D, 2-D and 3-D copies of a 16x16 fp32 matrix"
.segment 0x10000 f32:-1,-1.5,0,-1.25,1.75,1.5,1.75,1,-0.5,-1.25,1.75,-2,1,1.25,-2,1.5,0,-0.25,-1.25,0.5,-2,-2,-2,-2,1,-0.5,1.25,-2,2,-0.25,1.5,1.75,-0.25,0.75,-0.25,-0.25,1.5,0.25,-2,1.25,-1.25,-0.75,0.25,-1.25,0.5,2,1.25,2,-0.5,0.25,0.25,1.75,2,1,-1.75,1.75,-0.25,1,1.25,-0.75,0.75,0.75,-1.5,1.5,2,-1.25,-0.75,2,1,0.75,1.75,-2,1.75,-1.75,0.25,1,-0.75,-0.75,2,-0.25,-2,-0.5,-0.25,1,2,0.75,0.75,1.5,0,-2,1,2,-1,2,-0.5,1.25,-1.75,1.75,0.75,-0.5,2,1.25,1.75,0.75,1.25,0.75,-2,0.5,1.5,-2,-0.25,-0.75,-0.75,-1.5,0,-1.75,-1.5,-1.5,-2,1.5,-2,0,-0.25,0,-1.25,-0.75,0.75,0.25,-1.5,-0.75,-0.75,0,2,-0.75,0,0.25,1.5,0.5,1.75,1.75,-1.25,-2,0.25,1,0.5,1.25,-0.5,0,-1.25,0,2,-0.5,1.25,-2,-0.25,-2,1,-1,-1.75,-0.75,1.5,2,1.25,-0.25,2,1.5,-0.25,2,-2,1,0.5,1.25,-1.75,0.25,-1,-0.5,-1.75,0.25,-1.5,-1.5,0.25,0.25,-0.75,1.25,0,-1,-2,-1.75,-0.5,1.5,-0.75,2,-1.75,1,-0.5,0.75,-1.25,-0.5,1.25,-0.5,1.75,-1.25,1,0.25,2,1.75,-2,0.5,1,0.25,-2,-0.75,-0.5,0.5,-1,0.5,1.25,-0.5,0,-1.25,1,0.75,1.75,-0.25,-1.5,-1.75,-1.5,-1,-0.75,-0.75,-0.5,0,0.5,2,0,0.75,0.5,0.5,-1.25,0.25,-0.25,1.75,-1,-1.25,0.5,-1.75,1.25,-1.5,1,-1,-1,0.5,-1.25,1,-1.5,-0.25

# 1-D: the whole matrix (1 KiB) to scratchpad offset 0x0.
dma src=0x10000 dst=0x4000000000 inner_bytes=1024 tag=0
# 2-D: the top-left 8 x 8 tile (8 rows of 32 bytes, source row stride 64) to scratchpad offset
# 0x1000, packed (destination row stride 32). Runs on DMA channel 1.
dma src=0x10000 dst=0x4000001000 inner_bytes=32 n1=8 src_stride1=64 dst_stride1=32 channel=1 tag=0
# 3-D: the top-left and top-right 8 x 8 tiles (i2 = tile: source column offset 32 bytes) to
# scratchpad offset 0x2000 as two packed tiles of 256 bytes each.
dma src=0x10000 dst=0x4000002000 inner_bytes=32 n1=8 n2=2 src_stride1=64 dst_stride1=32 src_stride2=32 dst_stride2=256 tag=0
# The copies above must land before they are read back.
fence
# Scratchpad -> HBM: the packed tile to 0x20000 (1-D), and the two packed tiles unpacked again into
# a 16-float-wide layout at 0x30000 (3-D, the inverse of the gather above: HBM 0x30000..0x30200
# then equals rows 0..7 of M).
dma src=0x4000001000 dst=0x20000 inner_bytes=256 tag=0
dma src=0x4000002000 dst=0x30000 inner_bytes=32 n1=8 n2=2 src_stride1=32 dst_stride1=64 src_stride2=256 dst_stride2=32 tag=0
end
