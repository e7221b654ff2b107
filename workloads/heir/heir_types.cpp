#include "workloads/heir/heir_types.h"

#include <cstdlib>
#include <cstring>
#include <regex>

#include "base/error.h"

namespace photon::heir {

using mlir::Attr;

int log_n_from_polynomial(const std::string& text) {
  static const std::regex re(R"(x\s*\*\s*\*\s*(\d{1,18}))");
  std::smatch mt;
  if (!std::regex_search(text, mt, re)) return -1;
  unsigned long long n = std::stoull(mt[1].str());
  if (n == 0 || (n & (n - 1))) return -1;
  int l = 0;
  while ((1ULL << l) < n) ++l;
  return l;
}

void check_rings(const mlir::Module& m) {
  for (const auto& r : m.rings) {
    const Attr* pm = r.ring->get("polynomialModulus");
    if (!pm) continue;             // a ring without modulus (Z[x]) is not a ciphertext ring
    std::string text = pm->str();  // tokens joined by spaces: "<1 + x * * 1024>"
    for (const char* from : {"* *", " ** "})
      for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, std::strlen(from), "**");
    auto fail = [&](const std::string& what) {
      throw Error("ring " + (r.alias.empty() ? std::string("#polynomial.ring") : r.alias) +
                  " (polynomialModulus = " + text + "): " + what)
          .with_context(r.loc.str());
    };
    std::string t;  // spaces removed, outer <...> dropped
    for (char c : text)
      if (c != ' ') t += c;
    if (t.size() >= 2 && t.front() == '<' && t.back() == '>') t = t.substr(1, t.size() - 2);
    std::string digits;
    if (t.compare(0, 5, "1+x**") == 0)
      digits = t.substr(5);
    else if (t.compare(0, 3, "x**") == 0 && t.size() > 5 && t.compare(t.size() - 2, 2, "+1") == 0)
      digits = t.substr(3, t.size() - 5);
    if (digits.empty() || digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
      fail("the polynomial modulus is not x**N + 1 (the negacyclic ring of RLWE schemes)");
    unsigned long long n = std::stoull(digits);
    if (n == 0 || (n & (n - 1))) fail("N = " + digits + " is not a power of two (the NTT needs N = 2^k)");
    int l = 0;
    while ((1ULL << l) < n) ++l;
    if (l < kMinLogN || l > kMaxLogN)
      fail("N = 2^" + std::to_string(l) + " outside the supported ring degrees 2^" +
           std::to_string(kMinLogN) + " .. 2^" + std::to_string(kMaxLogN));
  }
}

namespace {

int ring_log_n(const Attr* ring) {
  if (!ring) return -1;
  const Attr* pm = ring->get("polynomialModulus");
  return pm ? log_n_from_polynomial(pm->str()) : -1;
}

}  // namespace

CtTypeInfo ct_type_info(const Attr& type) {
  CtTypeInfo info;
  const Attr* t = &type;
  // tensor<4x!ct>: look at the element type; the shape gives the element count
  int64_t elements = 1;
  if (t->kind == Attr::Kind::Dialect && t->text == "tensor" && !t->items.empty()) {
    const Attr* inner = t->items.back().second.get();
    if (inner->kind == Attr::Kind::Scalar && inner->items.size() == 2) {
      const std::string& dims = inner->items[0].second->text;  // "4x" / "2x3x"
      size_t pos = 0;
      while (pos < dims.size()) {
        size_t x = dims.find('x', pos);
        if (x == std::string::npos || x == pos) return info;  // dynamic or malformed shape
        long long d = std::atoll(dims.substr(pos, x - pos).c_str());
        if (d <= 0 || d > (1LL << 24)) return info;
        elements *= d;
        if (elements > (1LL << 24)) return info;
        pos = x + 1;
      }
      inner = inner->items[1].second.get();
    }
    if (inner->kind == Attr::Kind::Dialect && !inner->text.empty() && inner->text[0] == '!')
      t = inner;
    else
      return info;
  }
  info.elements = elements;
  if (t->kind != Attr::Kind::Dialect || t->text.empty() || t->text[0] != '!') return info;
  info.is_ciphertext = t->text.find("ciphertext") != std::string::npos;
  info.is_plaintext = t->text.find("plaintext") != std::string::npos;
  if (!info.is_ciphertext && !info.is_plaintext) return info;
  if (info.is_ciphertext) {
    if (const Attr* cs = t->get("ciphertext_space")) {
      const Attr* ring = cs->get("ring");
      info.log_n = ring_log_n(ring);
      if (ring)
        if (const Attr* ct = ring->get("coefficientType"))
          if (ct->kind == Attr::Kind::Dialect && ct->text == "!rns.rns")
            info.limbs = static_cast<int>(ct->items.size());
      long long s = 0;
      if (mlir::scalar_int(cs->get("size"), &s)) info.size = static_cast<int>(s);
    }
    if (const Attr* mc = t->get("modulus_chain")) {
      if (const Attr* el = mc->get("elements")) info.chain_len = static_cast<int>(el->items.size());
      long long c = 0;
      if (mlir::scalar_int(mc->get("current"), &c)) info.current = static_cast<int>(c);
    }
  }
  if (info.log_n < 0)
    if (const Attr* ps = t->get("plaintext_space")) info.log_n = ring_log_n(ps->get("ring"));
  return info;
}

SchemeParam scheme_param(const mlir::Module& m) {
  SchemeParam sp;
  for (const auto& [k, v] : m.attrs) {
    if (k.size() < 11 || k.compare(k.size() - 11, 11, "schemeParam") != 0) continue;
    sp.present = true;
    sp.key = k;
    long long x = 0;
    if (mlir::scalar_int(v->get("logN"), &x)) {
      if (x < kMinLogN || x > kMaxLogN)
        throw Error(k + ": logN = " + std::to_string(x) + " out of range [" + std::to_string(kMinLogN) +
                    ", " + std::to_string(kMaxLogN) + "] (supported ring degrees)")
            .with_context(m.has_module ? m.loc.str() : m.file);
      sp.log_n = static_cast<int>(x);
    }
    if (const Attr* q = v->get("Q")) sp.q_count = static_cast<int>(q->items.size());
    if (const Attr* p = v->get("P")) sp.p_count = static_cast<int>(p->items.size());
    break;
  }
  return sp;
}

int openfhe_default_dnum(int mult_depth) {
  if (mult_depth > 3) return 3;
  if (mult_depth > 0) return 2;
  return 1;
}

}  // namespace photon::heir
