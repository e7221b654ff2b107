# Vector unit: every operation on fp32 data in the scratchpad.
# X (64 fp32, also read as 8 rows of 8 and as a 1 x 8 x 8 image) and Y (64 fp32, no zeros) come
# from HBM 0x0 and 0x100; gamma (8 x 1.0) and beta (8 x 0.0) for layer_norm from HBM 0x200.
# Scratchpad: X 0x0, Y 0x100, gamma 0x200, beta 0x220, results from 0x1000 (each 0x100 apart,
# im2col output 2304 bytes at 0x4000).
.op 0 "load" Copy "inputs"
.op 1 "elementwise" Vector "unary, binary, scalar ops on 64 elements"
.op 2 "rows" Vector "softmax, layer_norm, reductions on 8 rows of 8"
.op 3 "image" Vector "pooling, im2col, transpose on a 1 x 8 x 8 image"
.op 4 "store" Copy "results to HBM 0x10000"
.segment 0x0 f32:-1.5,1.75,0,-1.75,-2,-1,1.75,0.75,0.5,-2,0,1.75,-0.5,1.25,-1.25,-0.5,0,-1.5,1.25,0.5,-1.5,0.75,1.25,0,1.5,-1.25,-0.5,0.25,-1.25,-1.75,-0.5,0.75,1.75,-0.5,2,2,-2,0.75,-0.25,1.25,0.25,0.75,-1.25,-1.5,2,2,-0.5,-1.25,0,0.25,-0.5,1,1.75,-0.25,-1,-0.5,2,-2,-0.5,-0.75,-2,0.5,0.25,0.75
.segment 0x100 f32:0.5,-1,1,-1.75,-1.5,-1.25,0.75,-1.75,2,-0.5,-1.75,-1.5,1.25,1.25,-1.5,-0.25,-1.5,1.25,-1.75,-1.25,-0.25,-1.75,1,-1.75,-0.25,-1.75,-1,0.25,1.25,-1,-1.25,0.25,-0.75,-1.25,-0.5,0.75,-1.25,-1.5,-1.75,-0.5,1.75,1.25,0.5,1.5,1.5,0.75,0.25,-0.25,-0.75,-0.25,-1.5,0.25,2,1.75,0.5,1.5,0.25,-1.5,-1.25,2,1.25,-0.75,0.5,-1
.segment 0x200 f32:1,1,1,1,1,1,1,1,0,0,0,0,0,0,0,0

dma src=0x0 dst=0x4000000000 inner_bytes=576 tag=0
signal queue=dma sem=0 tag=0
wait queue=vec sem=0 tag=1
# unary
vec op=copy src0=0x0 dst=0x1000 n=64 tag=1
vec op=relu src0=0x0 dst=0x1100 n=64 tag=1
vec op=gelu src0=0x0 dst=0x1200 n=64 tag=1
vec op=silu src0=0x0 dst=0x1300 n=64 tag=1
vec op=sigmoid src0=0x0 dst=0x1400 n=64 tag=1
vec op=tanh src0=0x0 dst=0x1500 n=64 tag=1
vec op=erf src0=0x0 dst=0x1600 n=64 tag=1
vec op=exp src0=0x0 dst=0x1700 n=64 tag=1
vec op=abs src0=0x0 dst=0x1800 n=64 tag=1
vec op=neg src0=0x0 dst=0x1900 n=64 tag=1
signal queue=vec sem=1 tag=1
wait queue=vec sem=1 tag=1
vec op=sqrt src0=0x1800 dst=0x1a00 n=64 tag=1
vec op=recip src0=0x1700 dst=0x1b00 n=64 tag=1
# binary, element-wise (bcast_len = n) and broadcast of an 8-element row (bcast_len = 8)
vec op=add src0=0x0 src1=0x100 dst=0x1c00 n=64 bcast_len=64 tag=1
vec op=sub src0=0x0 src1=0x100 dst=0x1d00 n=64 bcast_len=64 tag=1
vec op=mul src0=0x0 src1=0x100 dst=0x1e00 n=64 bcast_len=8 tag=1
vec op=div src0=0x0 src1=0x100 dst=0x1f00 n=64 bcast_len=64 tag=1
vec op=max src0=0x0 src1=0x100 dst=0x2000 n=64 bcast_len=64 tag=1
vec op=min src0=0x0 src1=0x100 dst=0x2100 n=64 bcast_len=8 bcast_inner=8 tag=1
vec op=pow src0=0x1700 src1=0x100 dst=0x2200 n=64 bcast_len=64 tag=1
# scalar operand in imm0 (clip: [imm0, imm1]; leaky_relu: alpha = imm0)
vec op=add_scalar src0=0x0 dst=0x2300 n=64 imm0=1.5 tag=1
vec op=mul_scalar src0=0x0 dst=0x2400 n=64 imm0=0.5 tag=1
vec op=clip src0=0x0 dst=0x2500 n=64 imm0=-1 imm1=1 tag=1
vec op=leaky_relu src0=0x0 dst=0x2600 n=64 imm0=0.01 tag=1
vec op=pow_scalar src0=0x1800 dst=0x2700 n=64 imm0=2 tag=1
# row ops: 8 rows of inner = 8 (layer_norm: epsilon = imm0, gamma at src1, beta at src2)
vec op=softmax src0=0x0 dst=0x2800 n=64 inner=8 tag=2
vec op=layer_norm src0=0x0 src1=0x200 src2=0x220 dst=0x2900 n=64 inner=8 imm0=1e-05 tag=2
vec op=reduce_sum src0=0x0 dst=0x2a00 n=64 inner=8 tag=2
vec op=reduce_mean src0=0x0 dst=0x2a20 n=64 inner=8 tag=2
vec op=reduce_max src0=0x0 dst=0x2a40 n=64 inner=8 tag=2
# image ops on C x H x W = 1 x 8 x 8
vec op=max_pool src0=0x0 dst=0x2b00 n=64 h=8 w=8 oh=4 ow=4 kh=2 kw=2 sh=2 sw=2 tag=3
vec op=avg_pool src0=0x0 dst=0x2b40 n=64 h=8 w=8 oh=4 ow=4 kh=3 kw=3 sh=2 sw=2 pad_top=1 pad_left=1 count_include_pad=1 tag=3
vec op=im2col src0=0x0 dst=0x4000 n=64 h=8 w=8 oh=8 ow=8 kh=3 kw=3 pad_top=1 pad_left=1 tag=3
vec op=transpose src0=0x0 dst=0x2c00 n=64 inner=8 tag=3
signal queue=vec sem=2 tag=3
wait queue=dma sem=2 tag=4
dma src=0x4000001000 dst=0x10000 inner_bytes=14592 tag=4
end
