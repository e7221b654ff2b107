// Encoding, decoding and naming of .pcs commands (layout: docs/command-stream.md).
#include "isa/command.h"

#include <cstring>

#include <fmt/format.h>

#include "base/error.h"
#include "isa/fields.h"
#include "isa/vector_ops.h"

namespace photon::pcs {
namespace detail {

#define PCS_INT(T, f, fmt_, always)                                                 \
  Field<T> {                                                                        \
#f, static_cast<uint8_t>(sizeof(T::f)), FieldFormat::fmt_, always,                \
        [](const T& s) -> uint64_t { return static_cast<uint64_t>(s.f); },            \
        [](T& s, uint64_t v) { s.f = static_cast<decltype(T::f)>(v); } \
  }
#define PCS_F32(T, f, always)                                                                                \
  Field<T> {                                                                                                 \
#f, 4, FieldFormat::F32, always,                                                                         \
        [](const T& s) -> uint64_t { return f32_bits(s.f); },                                                \
                                                           [](T & s, uint64_t v) { s.f = f32_from_bits(v); } \
  }

const std::vector<Field<Sync>>& sync_fields() {
  static const std::vector<Field<Sync>> t = {PCS_INT(Sync, sem, Dec, true)};
  return t;
}

const std::vector<Field<DmaCopy>>& dma_fields() {
  static const std::vector<Field<DmaCopy>> t = {
      PCS_INT(DmaCopy, src, Hex, true),          PCS_INT(DmaCopy, dst, Hex, true),
      PCS_INT(DmaCopy, inner_bytes, Dec, true),  PCS_INT(DmaCopy, n1, Dec, true),
      PCS_INT(DmaCopy, n2, Dec, true),           PCS_INT(DmaCopy, channel, Dec, false),
      PCS_INT(DmaCopy, src_stride1, Dec, false), PCS_INT(DmaCopy, dst_stride1, Dec, false),
      PCS_INT(DmaCopy, src_stride2, Dec, false), PCS_INT(DmaCopy, dst_stride2, Dec, false),
  };
  return t;
}

const std::vector<Field<Gemm>>& gemm_fields() {
  static const std::vector<Field<Gemm>> t = {
      PCS_INT(Gemm, a, Hex, true),     PCS_INT(Gemm, b, Hex, true),   PCS_INT(Gemm, c, Hex, true),
      PCS_INT(Gemm, bias, Hex, false), PCS_INT(Gemm, m, Dec, true),   PCS_INT(Gemm, n, Dec, true),
      PCS_INT(Gemm, k, Dec, true),     PCS_INT(Gemm, lda, Dec, true), PCS_INT(Gemm, ldb, Dec, true),
      PCS_INT(Gemm, ldc, Dec, true),
  };
  return t;
}

const std::vector<Field<Ntt>>& ntt_fields() {
  static const std::vector<Field<Ntt>> t = {
      PCS_INT(Ntt, log_n, Dec, true),  PCS_INT(Ntt, limbs, Dec, true),   PCS_INT(Ntt, out_limbs, Dec, false),
      PCS_INT(Ntt, src0, Hex, true),   PCS_INT(Ntt, src1, Hex, false),   PCS_INT(Ntt, dst, Hex, true),
      PCS_INT(Ntt, moduli, Hex, true), PCS_INT(Ntt, galois, Dec, false),   PCS_INT(Ntt, terms, Dec, false),
      PCS_INT(Ntt, src0_stride, Dec, false), PCS_INT(Ntt, src1_stride, Dec, false),
  };
  return t;
}

const std::vector<Field<Vector>>& vector_fields() {
  static const std::vector<Field<Vector>> t = {
      PCS_INT(Vector, src0, Hex, true),
      PCS_INT(Vector, src1, Hex, false),
      PCS_INT(Vector, src2, Hex, false),
      PCS_INT(Vector, dst, Hex, true),
      PCS_INT(Vector, n, Dec, true),
      PCS_INT(Vector, inner, Dec, false),
      PCS_INT(Vector, bcast_inner, Dec, false),
      PCS_INT(Vector, bcast_len, Dec, false),
      PCS_F32(Vector, imm0, false),
      PCS_F32(Vector, imm1, false),
      PCS_INT(Vector, h, Dec, false),
      PCS_INT(Vector, w, Dec, false),
      PCS_INT(Vector, oh, Dec, false),
      PCS_INT(Vector, ow, Dec, false),
      PCS_INT(Vector, kh, Dec, false),
      PCS_INT(Vector, kw, Dec, false),
      PCS_INT(Vector, sh, Dec, false),
      PCS_INT(Vector, sw, Dec, false),
      PCS_INT(Vector, pad_top, Dec, false),
      PCS_INT(Vector, pad_left, Dec, false),
      PCS_INT(Vector, count_include_pad, Dec, false),
      PCS_INT(Vector, dilation, Dec, false),
  };
  return t;
}

#undef PCS_INT
#undef PCS_F32

namespace {
template <class T>
std::vector<FieldOffset> layout_of(const std::vector<Field<T>>& fields) {
  std::vector<FieldOffset> out;
  uint32_t off = 8;
  for (const auto& f : fields) {
    out.push_back({f.name, off, f.bytes});
    off += f.bytes;
  }
  return out;
}
}  // namespace

std::vector<FieldOffset> payload_layout(Opcode op) {
  switch (op) {
    case Opcode::Signal:
    case Opcode::Wait: return layout_of(sync_fields());
    case Opcode::DmaCopy: return layout_of(dma_fields());
    case Opcode::Gemm: return layout_of(gemm_fields());
    case Opcode::Ntt: return layout_of(ntt_fields());
    case Opcode::Vector: return layout_of(vector_fields());
    default: return {};
  }
}

const std::vector<FlagName>& gemm_flag_names() {
  static const std::vector<FlagName> t = {{Gemm::kAccumulate, "accumulate"},
                                          {Gemm::kTransposeA, "transpose_a"},
                                          {Gemm::kTransposeB, "transpose_b"},
                                          {Gemm::kReuseWeights, "reuse_weights"},
                                          {Gemm::kBias, "bias"}};
  return t;
}

bool valid_ntt_op(uint8_t op) { return op <= Ntt::kMulAccMod; }
bool valid_vector_op(uint8_t op) { return vector_op_info(op) != nullptr; }

}  // namespace detail

using namespace detail;

namespace {

struct OpName {
  uint8_t op;
  const char* name;
};

const OpName kNttNames[] = {
    {Ntt::kForward, "forward"}, {Ntt::kInverse, "inverse"},       {Ntt::kMulMod, "mul_mod"},
    {Ntt::kAddMod, "add_mod"},  {Ntt::kSubMod, "sub_mod"},        {Ntt::kAutomorph, "automorph"},
    {Ntt::kBConv, "bconv"},     {Ntt::kMulAccMod, "mul_acc_mod"},
};

template <size_t N>
const char* find_name(const OpName (&t)[N], uint8_t op) {
  for (const auto& e : t)
    if (e.op == op) return e.name;
  return "unknown";
}
template <size_t N>
bool find_op(const OpName (&t)[N], const std::string& s, uint8_t& op) {
  for (const auto& e : t)
    if (s == e.name) {
      op = e.op;
      return true;
    }
  return false;
}

// Fields are little-endian; on a little-endian host they are copied as they are.
constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

void put_le(uint8_t* p, uint64_t v, int bytes) {
  if (kLittleEndianHost) {
    std::memcpy(p, &v, bytes);
    return;
  }
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  if (kLittleEndianHost) {
    std::memcpy(&v, p, bytes);
    return v;
  }
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

template <class T>
uint32_t pack(const std::vector<Field<T>>& fields, const T& s, uint8_t* out) {
  uint32_t off = 8;
  for (const auto& f : fields) {
    put_le(out + off, f.get(s), f.bytes);
    off += f.bytes;
  }
  return off;
}
template <class T>
uint32_t unpack(const std::vector<Field<T>>& fields, T& s, const uint8_t* in) {
  uint32_t off = 8;
  for (const auto& f : fields) {
    f.set(s, get_le(in + off, f.bytes));
    off += f.bytes;
  }
  return off;
}

template <class T>
bool fields_equal(const std::vector<Field<T>>& fields, const T& a, const T& b) {
  for (const auto& f : fields)
    if (f.get(a) != f.get(b)) return false;
  return true;
}

bool known_opcode(uint8_t op) {
  switch (static_cast<Opcode>(op)) {
    case Opcode::End:
    case Opcode::Fence:
    case Opcode::Signal:
    case Opcode::Wait:
    case Opcode::DmaCopy:
    case Opcode::Gemm:
    case Opcode::Ntt:
    case Opcode::Vector: return true;
  }
  return false;
}

/// Index of the variant alternative an opcode requires.
size_t body_index(Opcode op) {
  switch (op) {
    case Opcode::End: return 0;
    case Opcode::Fence: return 1;
    case Opcode::Signal:
    case Opcode::Wait: return 2;
    case Opcode::DmaCopy: return 3;
    case Opcode::Gemm: return 4;
    case Opcode::Ntt: return 5;
    case Opcode::Vector: return 6;
  }
  return 0;
}

const char* const kBodyNames[] = {"End", "Fence", "Sync", "DmaCopy", "Gemm", "Ntt", "Vector"};

}  // namespace

const char* queue_name(Queue q) {
  switch (q) {
    case Queue::Dma: return "dma";
    case Queue::Gemm: return "gemm";
    case Queue::Ntt: return "ntt";
    case Queue::Vector: return "vec";
  }
  return "unknown";
}

bool queue_from_name(const std::string& s, Queue& q) {
  for (int i = 0; i < kQueueCount; ++i)
    if (s == queue_name(static_cast<Queue>(i))) {
      q = static_cast<Queue>(i);
      return true;
    }
  return false;
}

const char* opcode_name(Opcode op) {
  switch (op) {
    case Opcode::End: return "end";
    case Opcode::Fence: return "fence";
    case Opcode::Signal: return "signal";
    case Opcode::Wait: return "wait";
    case Opcode::DmaCopy: return "dma";
    case Opcode::Gemm: return "gemm";
    case Opcode::Ntt: return "ntt";
    case Opcode::Vector: return "vec";
  }
  return "unknown";
}

const char* ntt_op_name(uint8_t op) { return find_name(kNttNames, op); }
const char* vector_op_name(uint8_t op) {
  const VectorOpInfo* row = vector_op_info(op);
  return row ? row->name : "unknown";
}
bool ntt_op_from_name(const std::string& s, uint8_t& op) { return find_op(kNttNames, s, op); }
bool vector_op_from_name(const std::string& s, uint8_t& op) {
  const VectorOpInfo* row = vector_op_by_name(s);
  if (row) op = row->op;
  return row != nullptr;
}

int Command::queue() const {
  if (opcode == Opcode::Signal || opcode == Opcode::Wait) {
    if (const auto* s = std::get_if<Sync>(&body)) return static_cast<int>(s->queue);
    return -1;
  }
  for (unsigned q = 0; q < regs::kUnitCount; ++q)
    if (regs::kUnits[q].opcode == uint8_t(opcode)) return int(q);
  return -1;
}

Command make_end() { return Command{Opcode::End, kNoTag, End{}}; }
Command make_fence() { return Command{Opcode::Fence, kNoTag, Fence{}}; }
Command make_signal(Queue q, uint32_t sem, uint32_t tag) {
  return Command{Opcode::Signal, tag, Sync{q, sem}};
}
Command make_wait(Queue q, uint32_t sem, uint32_t tag) { return Command{Opcode::Wait, tag, Sync{q, sem}}; }
Command make_dma(const DmaCopy& d, uint32_t tag) { return Command{Opcode::DmaCopy, tag, d}; }
Command make_gemm(const Gemm& g, uint32_t tag) { return Command{Opcode::Gemm, tag, g}; }
Command make_ntt(const Ntt& n, uint32_t tag) { return Command{Opcode::Ntt, tag, n}; }
Command make_vector(const Vector& v, uint32_t tag) { return Command{Opcode::Vector, tag, v}; }

void validate(const Command& c) {
  const auto raw = static_cast<uint8_t>(c.opcode);
  if (!known_opcode(raw)) throw Error(fmt::format("unknown opcode 0x{:02x}", raw));
  if (c.body.index() != body_index(c.opcode))
    throw Error(fmt::format("opcode {} needs a {} body, holds {}", opcode_name(c.opcode),
                            kBodyNames[body_index(c.opcode)], kBodyNames[c.body.index()]));
  if (const auto* s = std::get_if<Sync>(&c.body)) {
    const auto q = static_cast<uint8_t>(s->queue);
    if (q >= kQueueCount) throw Error(fmt::format("bad queue {}", q));
  } else if (const auto* g = std::get_if<Gemm>(&c.body)) {
    if (g->flags & ~kGemmFlagMask)
      throw Error(fmt::format("unknown GEMM flag bits 0x{:02x}", g->flags & ~kGemmFlagMask));
  } else if (const auto* n = std::get_if<Ntt>(&c.body)) {
    if (!valid_ntt_op(n->op)) throw Error(fmt::format("unknown NTT op {}", n->op));
  } else if (const auto* v = std::get_if<Vector>(&c.body)) {
    if (!valid_vector_op(v->op)) throw Error(fmt::format("unknown vector op {}", v->op));
  }
}

void encode(const Command& c, uint8_t* out) {
  validate(c);
  std::fill(out, out + kCommandBytes, uint8_t{0});
  out[0] = static_cast<uint8_t>(c.opcode);
  put_le(out + 4, c.tag, 4);
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, Sync>) {
          out[2] = static_cast<uint8_t>(b.queue);
          pack(sync_fields(), b, out);
        } else if constexpr (std::is_same_v<T, DmaCopy>) {
          pack(dma_fields(), b, out);
        } else if constexpr (std::is_same_v<T, Gemm>) {
          out[3] = b.flags;
          pack(gemm_fields(), b, out);
        } else if constexpr (std::is_same_v<T, Ntt>) {
          out[1] = b.op;
          pack(ntt_fields(), b, out);
        } else if constexpr (std::is_same_v<T, Vector>) {
          out[1] = b.op;
          pack(vector_fields(), b, out);
        }
      },
      c.body);
}

namespace {
void check_head_zero(const uint8_t* in, int byte, const char* what, Opcode op) {
  if (in[byte] != 0)
    throw Error(fmt::format("reserved byte {} ({}) is 0x{:02x}, must be 0 for {}", byte, what, in[byte],
                            opcode_name(op)));
}
void check_tail_zero(const uint8_t* in, uint32_t from) {
  static const uint8_t zeros[kCommandBytes] = {};
  if (from >= kCommandBytes || std::memcmp(in + from, zeros, kCommandBytes - from) == 0) return;
  for (uint32_t i = from; i < kCommandBytes; ++i)
    if (in[i] != 0) throw Error(fmt::format("reserved byte {} is 0x{:02x}, must be 0", i, in[i]));
}
}  // namespace

Command decode(const uint8_t* in) {
  if (!known_opcode(in[0])) throw Error(fmt::format("unknown opcode 0x{:02x}", in[0]));
  Command c;
  c.opcode = static_cast<Opcode>(in[0]);
  c.tag = static_cast<uint32_t>(get_le(in + 4, 4));
  const bool has_subop = c.opcode == Opcode::Ntt || c.opcode == Opcode::Vector;
  const bool has_queue = c.opcode == Opcode::Signal || c.opcode == Opcode::Wait;
  if (!has_subop) check_head_zero(in, 1, "subop", c.opcode);
  if (!has_queue) check_head_zero(in, 2, "queue", c.opcode);
  if (c.opcode != Opcode::Gemm) check_head_zero(in, 3, "flags", c.opcode);
  uint32_t end = 8;
  switch (c.opcode) {
    case Opcode::End: c.body = End{}; break;
    case Opcode::Fence: c.body = Fence{}; break;
    case Opcode::Signal:
    case Opcode::Wait: {
      if (in[2] >= kQueueCount) throw Error(fmt::format("bad queue {}", in[2]));
      Sync s;
      s.queue = static_cast<Queue>(in[2]);
      end = unpack(sync_fields(), s, in);
      c.body = s;
      break;
    }
    case Opcode::DmaCopy: {
      DmaCopy d;
      end = unpack(dma_fields(), d, in);
      c.body = d;
      break;
    }
    case Opcode::Gemm: {
      Gemm g;
      g.flags = in[3];
      end = unpack(gemm_fields(), g, in);
      c.body = g;
      break;
    }
    case Opcode::Ntt: {
      Ntt n;
      n.op = in[1];
      end = unpack(ntt_fields(), n, in);
      c.body = n;
      break;
    }
    case Opcode::Vector: {
      Vector v;
      v.op = in[1];
      end = unpack(vector_fields(), v, in);
      c.body = v;
      break;
    }
  }
  check_tail_zero(in, end);
  validate(c);
  return c;
}

bool operator==(const Command& a, const Command& b) {
  if (a.opcode != b.opcode || a.tag != b.tag || a.body.index() != b.body.index()) return false;
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const auto& y = std::get<T>(b.body);
        if constexpr (std::is_same_v<T, Sync>) {
          return x.queue == y.queue && fields_equal(sync_fields(), x, y);
        } else if constexpr (std::is_same_v<T, DmaCopy>) {
          return fields_equal(dma_fields(), x, y);
        } else if constexpr (std::is_same_v<T, Gemm>) {
          return x.flags == y.flags && fields_equal(gemm_fields(), x, y);
        } else if constexpr (std::is_same_v<T, Ntt>) {
          return x.op == y.op && fields_equal(ntt_fields(), x, y);
        } else if constexpr (std::is_same_v<T, Vector>) {
          return x.op == y.op && fields_equal(vector_fields(), x, y);
        } else {
          return true;
        }
      },
      a.body);
}

}  // namespace photon::pcs
