// Photon command stream (.pcs) commands: fixed 64-byte records, little-endian.
//
// Byte layout of every command (docs/command-stream.md has the field-by-field tables):
//   [0] opcode  [1] subop  [2] queue (Signal/Wait only)  [3] flags
//   [4..7] tag: index into the stream's op table (which layer / FHE op a command belongs to),
//          kNoTag if none
//   [8..63] payload, one of the structs below, packed in declaration order.
// Addresses: DMA src/dst are data-NoC addresses (bytes, 64-bit). GEMM, NTT and vector operands
// are scratchpad byte offsets (32-bit). GEMM and vector data are fp32; NTT data are 64-bit words.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "regs_view.h"

namespace photon::pcs {

constexpr uint32_t kCommandBytes = 64;
constexpr uint32_t kNoTag = 0xFFFFFFFFu;

/// Command opcodes; values from enum Opcode of platform/regs/registers.yaml (what the firmware
/// routes by).
enum class Opcode : uint8_t {
  End = uint8_t(regs::Opcode::END),      ///< end of program: firmware drains every queue, reports done
  Fence = uint8_t(regs::Opcode::FENCE),  ///< firmware waits until every unit queue is idle
  Signal =
      uint8_t(regs::Opcode::SIGNAL),  ///< in `queue`: after earlier commands of that queue complete, sem += 1
  Wait = uint8_t(regs::Opcode::WAIT),  ///< in `queue`: block that queue until sem > 0, then sem -= 1
  DmaCopy = uint8_t(regs::Opcode::DMA),
  Gemm = uint8_t(regs::Opcode::GEMM),
  Ntt = uint8_t(regs::Opcode::NTT),
  Vector = uint8_t(regs::Opcode::VECTOR),
};

/// Hardware command queues (one per unit that executes commands), registers.yaml `units`.
enum class Queue : uint8_t {
  Dma = uint8_t(regs::QueueId::DMA),
  Gemm = uint8_t(regs::QueueId::GEMM),
  Ntt = uint8_t(regs::QueueId::NTT),
  Vector = uint8_t(regs::QueueId::VEC),
};
constexpr int kQueueCount = int(regs::kUnitCount);
const char* queue_name(Queue q);

/// 1-D/2-D/3-D strided copy: for i2 < n2, i1 < n1: copy inner_bytes from
/// src + i2*src_stride2 + i1*src_stride1 to dst + i2*dst_stride2 + i1*dst_stride1.
struct DmaCopy {
  uint64_t src = 0, dst = 0;
  uint32_t inner_bytes = 0, n1 = 1, n2 = 1;
  uint32_t channel = 0;
  uint64_t src_stride1 = 0, dst_stride1 = 0;
  uint32_t src_stride2 = 0, dst_stride2 = 0;  // payload: 8+8+4*4+8+8+4+4 = 56 bytes
};

/// C[m x n] (+)= A[m x k] * B[k x n] (+ bias[n]), fp32, row-major with leading dimensions
/// (elements). B is the weight operand (stationary in the optical array when flag kReuseWeights).
struct Gemm {
  enum Flags : uint8_t {
    kAccumulate = 1,    ///< C += A*B (electronic accumulation across K tiles)
    kTransposeA = 2,    ///< A is stored k x m
    kTransposeB = 4,    ///< B is stored n x k
    kReuseWeights = 8,  ///< B is the tile already programmed: no weight reprogramming
    kBias = 16,         ///< add bias[n] (fp32 at `bias`)
  };
  uint8_t flags = 0;
  uint32_t a = 0, b = 0, c = 0, bias = 0;
  uint32_t m = 0, n = 0, k = 0;
  uint32_t lda = 0, ldb = 0, ldc = 0;
};

/// NTT-unit operation over `limbs` residue polynomials of degree 2^log_n (64-bit words, limb-major:
/// limb i occupies words [i*N, (i+1)*N)). Moduli: `limbs` uint64 at `moduli` (for BConv: the
/// `limbs` source moduli followed by `out_limbs` target moduli).
struct Ntt {
  enum Op : uint8_t {
    kForward = 0,    ///< negacyclic NTT of each limb, in place src0 -> dst
    kInverse = 1,    ///< inverse negacyclic NTT
    kMulMod = 2,     ///< dst = src0 * src1 mod q
    kAddMod = 3,     ///< dst = src0 + src1 mod q
    kSubMod = 4,     ///< dst = src0 - src1 mod q
    kAutomorph = 5,  ///< dst(X) = src0(X^g) mod (X^N + 1), g = galois & 0x7fffffff; bit 31 of
                     ///< galois set: data in the NTT domain (permutation of evaluations)
    kBConv = 6,      ///< fast base conversion: `limbs` source limbs -> `out_limbs` target limbs
    kMulAccMod = 7,  ///< dst += src0 * src1 mod q (key-switch inner product; see `terms`)
  };
  uint8_t op = kForward;
  uint8_t log_n = 10;
  uint32_t limbs = 1, out_limbs = 0;
  uint32_t src0 = 0, src1 = 0, dst = 0, moduli = 0;
  uint32_t galois = 1;  ///< Galois element (odd), bit 31: NTT-domain data
  /// mul_mod / mul_acc_mod: products summed per element (0 or 1: one). Term t reads src0 +
  /// t*src0_stride and src1 + t*src1_stride (bytes): dst (+)= sum_t src0_t * src1_t mod q, the
  /// key-switch inner product over dnum digits in one command.
  uint32_t terms = 0;
  uint32_t src0_stride = 0, src1_stride = 0;
  /// Products summed by this command (terms, with 0 read as 1).
  uint32_t term_count() const { return terms > 1 ? terms : 1; }
  /// Flag in `galois`: the automorphism permutes NTT-domain (evaluation) data.
  static constexpr uint32_t kGaloisNttDomain = 1u << 31;
};

/// Vector-unit operation on fp32 arrays in the scratchpad.
/// Binary ops broadcast src1: element i uses src1[(i / bcast_inner) % bcast_len].
/// Row ops (Softmax, LayerNorm, Reduce*) work on `n / inner` rows of `inner` elements.
/// Pooling and im2col: src0 is C x H x W (C = n / (h*w)); pooling writes C x oh x ow.
struct Vector {
  enum Op : uint8_t {
    kCopy = 0,
    kRelu,
    kGelu,
    kSilu,
    kSigmoid,
    kTanh,
    kErf,
    kExp,
    kSqrt,
    kRecip,
    kNeg,
    kAbs,
    kAdd = 16,
    kSub,
    kMul,
    kDiv,
    kMax,
    kMin,
    kPow,
    kAddScalar = 32,
    kMulScalar,
    kClip,
    kLeakyRelu,
    kPowScalar,
    kSoftmax = 48,
    kLayerNorm,
    kReduceSum,
    kReduceMean,
    kReduceMax,
    kMaxPool = 64,
    kAvgPool,
    kIm2col = 66,     ///< src0 C x H x W -> dst (C*kh*kw) x (oh*ow), zero padding (Caffe order)
    kTranspose = 67,  ///< src0 (n/inner) x inner -> dst inner x (n/inner)
  };
  uint8_t op = kCopy;
  uint32_t src0 = 0, src1 = 0, src2 = 0, dst = 0;
  uint32_t n = 0;      ///< elements of src0
  uint32_t inner = 1;  ///< row length for row ops
  uint32_t bcast_inner = 1, bcast_len = 1;
  float imm0 = 0, imm1 = 0;               ///< scalar operand, clip bounds, epsilon, alpha
  uint16_t h = 0, w = 0, oh = 0, ow = 0;  ///< pooling geometry
  uint8_t kh = 0, kw = 0, sh = 1, sw = 1, pad_top = 0, pad_left = 0;
  uint8_t count_include_pad = 0;
  /// im2col tap spacing (ONNX Conv `dilations`) minus one: bits 0-3 rows (dh - 1), bits 4-7
  /// columns (dw - 1); 0 = adjacent taps. See dilation_h()/dilation_w().
  uint8_t dilation = 0;
  uint32_t dilation_h() const { return (dilation & 0xfu) + 1; }
  uint32_t dilation_w() const { return (dilation >> 4) + 1; }
  /// Packs dh, dw (each 1..16) into `dilation`.
  static uint8_t pack_dilation(uint32_t dh, uint32_t dw) {
    return static_cast<uint8_t>((dh - 1) | ((dw - 1) << 4));
  }
};

/// Semaphore signal/wait executed in order within `queue`.
struct Sync {
  Queue queue = Queue::Dma;
  uint32_t sem = 0;
};

struct End {};
struct Fence {};

/// One decoded command. `tag` names the op-table entry the command belongs to.
struct Command {
  Opcode opcode = Opcode::End;
  uint32_t tag = kNoTag;
  std::variant<End, Fence, Sync, DmaCopy, Gemm, Ntt, Vector> body;

  /// The queue that executes this command (Signal/Wait: their `queue`); End/Fence: none (-1).
  int queue() const;
};

Command make_end();
Command make_fence();
Command make_signal(Queue q, uint32_t sem, uint32_t tag = kNoTag);
Command make_wait(Queue q, uint32_t sem, uint32_t tag = kNoTag);
Command make_dma(const DmaCopy& d, uint32_t tag = kNoTag);
Command make_gemm(const Gemm& g, uint32_t tag = kNoTag);
Command make_ntt(const Ntt& n, uint32_t tag = kNoTag);
Command make_vector(const Vector& v, uint32_t tag = kNoTag);

/// Encodes to exactly kCommandBytes bytes at `out`.
void encode(const Command& c, uint8_t* out);
/// Decodes kCommandBytes bytes. Throws Error ("unknown opcode 0x7f", "bad queue 9") on bad input;
/// the caller adds "command N" context.
Command decode(const uint8_t* in);

const char* opcode_name(Opcode op);
const char* ntt_op_name(uint8_t op);
const char* vector_op_name(uint8_t op);
/// Inverse of the *_name functions; return false for an unknown name.
bool ntt_op_from_name(const std::string& s, uint8_t& op);
bool vector_op_from_name(const std::string& s, uint8_t& op);
/// Inverse of queue_name(); returns false for an unknown name.
bool queue_from_name(const std::string& s, Queue& q);

/// Throws Error unless `c` can be encoded: body alternative matches the opcode, NTT/vector op
/// defined, Signal/Wait queue in [0, kQueueCount), no undefined GEMM flag bits.
void validate(const Command& c);

/// Field-wise equality of opcode, tag and body. Float fields (Vector::imm0/imm1) compare by bit
/// pattern, so equality means "encodes to the same bytes".
bool operator==(const Command& a, const Command& b);
inline bool operator!=(const Command& a, const Command& b) { return !(a == b); }

}  // namespace photon::pcs
