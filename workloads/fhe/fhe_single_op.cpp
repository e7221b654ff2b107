// make_single_op_program: the program behind `photon fhe --op OP ...`.
#include "base/error.h"
#include "workloads/fhe/fhe_bootstrap.h"
#include "workloads/fhe/fhe_lowering.h"

namespace photon::fhe {

FheProgram make_single_op_fhe_program(const std::string& op, uint32_t log_n, uint32_t max_level,
                                      uint32_t level, uint32_t alpha, const RunConfig& cfg) {
  if (log_n < 10 || log_n > 17)
    throw Error("--ring-degree: 2^" + std::to_string(log_n) + " outside [2^10, 2^17]");
  if (max_level < 1 || max_level > 200)
    throw Error("--max-level " + std::to_string(max_level) + " outside [1, 200]");
  if (level > max_level)
    throw Error("--level " + std::to_string(level) + " above --max-level " + std::to_string(max_level));
  if (alpha < 1 || alpha > max_level + 1)
    throw Error("--alpha " + std::to_string(alpha) + " outside [1, L+1 = " + std::to_string(max_level + 1) +
                "]");
  FheOp base;
  base.log_n = log_n;
  base.max_level = max_level;
  base.level = level;
  base.alpha = alpha;
  base.dnum = cfg.fhe.dnum ? cfg.fhe.dnum : (max_level + alpha) / alpha;
  if (uint64_t(base.dnum) * alpha < max_level + 1ull)
    throw Error("fhe.dnum " + std::to_string(base.dnum) + " * --alpha " + std::to_string(alpha) +
                " does not cover L+1 = " + std::to_string(max_level + 1) + " limbs");
  FheProgram p;
  p.source = "photon fhe --op " + op;
  p.scheme = "ckks";
  auto add = [&](FheOpKind k, const char* name) {
    FheOp o = base;
    o.kind = k;
    o.name = name;
    if (k == FheOpKind::Rotate) o.rotation = 1;
    p.ops.push_back(o);
  };
  if (op == "hmult" || op == "hmult_rescale") {
    add(FheOpKind::Mul, "ckks.mul");
    add(FheOpKind::Relinearize, "ckks.relinearize");
    if (op == "hmult_rescale") {  // SimFHE's HMult (evaluator.multiply): the product rescaled
      if (level < 1) throw Error("--level: hmult_rescale needs level >= 1");
      add(FheOpKind::Rescale, "ckks.rescale");
    }
  } else if (op == "hrot") {
    add(FheOpKind::Rotate, "ckks.rotate");
  } else if (op == "rescale") {
    if (level < 1) throw Error("--level: rescale needs level >= 1");
    add(FheOpKind::Rescale, "ckks.rescale");
  } else if (op == "padd") {
    add(FheOpKind::AddPlain, "ckks.add_plain");
  } else if (op == "hadd") {
    add(FheOpKind::Add, "ckks.add");
  } else if (op == "pmult") {
    add(FheOpKind::MulPlain, "ckks.mul_plain");
  } else if (op == "bootstrap") {
    add(FheOpKind::Bootstrap, "ckks.bootstrap");
    with_error_context("--max-level", [&] { return bootstrap_sequence(p.ops.back(), cfg.fhe); });
  } else {
    throw Error("--op '" + op +
                "': expected hmult, hmult_rescale, hrot, rescale, padd, hadd, pmult or bootstrap");
  }
  return p;
}

pcs::Program make_single_op_program(const std::string& op, uint32_t log_n, uint32_t max_level, uint32_t level,
                                    uint32_t alpha, const RunConfig& cfg) {
  return lower_fhe(make_single_op_fhe_program(op, log_n, max_level, level, alpha, cfg), cfg);
}

}  // namespace photon::fhe
