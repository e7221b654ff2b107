// The FHE op table: one row of traits per FheOpKind, read by planning (which keys and buffers a
// program needs), lowering (the op's emitter, its checks and its op-table detail) and the op
// listings (names in workload_info). docs/extending.md "Adding an FHE op" lists what a new op
// touches; docs/fhe.md gives each op's expansion and sources.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/config/fhe_config.h"
#include "workloads/fhe/fhe_keys.h"
#include "workloads/fhe/fhe_program.h"

namespace photon::fhe {

class OpLowerer;      // workloads/fhe/fhe_lowering_internal.h
class StreamLowerer;  // workloads/fhe/fhe_stream_internal.h

/// Which evaluation keys an op reads (docs/fhe.md, "Op expansion").
enum class KeyUse : uint8_t {
  None,         ///< no key switch
  Relinearize,  ///< one key per component above c_1 of a degree-d input: s^2 .. s^d
  Switch,       ///< the generic key-switching key
  Rotation,     ///< the rotation key of 5^r mod 2N; none for an identity rotation
  Conjugation,  ///< the key of the automorphism X -> X^(2N-1)
  Hoisted,      ///< `count` rotation keys 5^(r+i) mod 2N sharing one ModUp
  SubOps,       ///< the keys of the sub-ops the op expands into (Bootstrap)
};

/// One op's row. Function members are nullptr where they do not apply.
struct FheOpTraits {
  FheOpKind kind;
  const char* name;        ///< the enum's spelling, "HoistedRotate" (listings, error context)
  const char* table_kind;  ///< the op table's kind, "hrot_hoisted" (report rows, docs/report.md)
  KeyUse keys;
  bool rotation;  ///< carries a rotation offset: the detail shows it and its Galois element
  bool degree;    ///< reads ct_degree: checked <= 8, shown in the detail when above 1
  bool hoisted;   ///< keeps a rotated copy of the raised digits (scratchpad buffers per digit)
  bool client;    ///< client-side (encryption, decryption): listed, runs nothing
  /// Composite ops: the chain the op runs on (applied when the op is checked) ...
  FheOp (*chain)(FheOp op, const FheConfig& fc);
  /// ... and the sub-ops it is lowered as (run on the chained op). Throws Error when the
  /// parameters cannot hold the expansion.
  std::vector<FheOp> (*expand)(const FheOp& op, const FheConfig& fc);
  /// Emits the op's commands; nullptr with no `expand`: the op emits no command.
  void (*lower)(OpLowerer& l, const FheOp& op);
  /// The same commands, streamed between HBM and the scratchpad in tiles (docs/fhe.md "Memory
  /// plan"); nullptr exactly where `lower` is.
  void (*stream)(StreamLowerer& l, const FheOp& op);
};

/// The row of `k`.
const FheOpTraits& fhe_op_traits(FheOpKind k);
/// The enum's spelling, e.g. "Rotate".
const char* fhe_op_kind_name(FheOpKind k);

/// The evaluation keys `op` reads, in the order its expansion uses them (repeats included).
/// Throws Error for a composite op whose parameters cannot hold its expansion.
std::vector<KeyId> fhe_op_keys(const FheOp& op, const FheConfig& fc);
/// True if the op key-switches: its row reads keys and it is not an identity rotation.
bool fhe_op_needs_key(const FheOp& op);

}  // namespace photon::fhe
