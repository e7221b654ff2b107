// .pcs -> .pasm text (syntax: assembler.h, docs/command-stream.md).
#include "isa/disassembler.h"

#include <fmt/format.h>

#include "base/error.h"
#include "isa/fields.h"
#include "isa/text_syntax.h"

namespace photon::pcs {
using namespace detail;

namespace {

template <class T>
void print_fields(std::string& out, const std::vector<Field<T>>& fields, const T& body) {
  const T def{};
  for (const auto& f : fields) {
    const uint64_t v = f.get(body);
    if (!f.always && v == f.get(def)) continue;
    switch (f.format) {
      case FieldFormat::Dec: out += fmt::format(" {}={}", f.name, v); break;
      case FieldFormat::Hex: out += fmt::format(" {}=0x{:x}", f.name, v); break;
      case FieldFormat::F32:
        out += fmt::format(" {}={}", f.name, format_f32(static_cast<uint32_t>(v)));
        break;
    }
  }
}

std::string flags_text(uint8_t flags) {
  if (flags == 0) return "none";
  std::string s;
  for (const auto& f : gemm_flag_names())
    if (flags & f.bit) s += (s.empty() ? "" : "|") + std::string(f.name);
  return s;
}

std::string command_text(const Command& c) {
  std::string out = opcode_name(c.opcode);
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, Sync>) {
          out += fmt::format(" queue={}", queue_name(b.queue));
          print_fields(out, sync_fields(), b);
        } else if constexpr (std::is_same_v<T, DmaCopy>) {
          print_fields(out, dma_fields(), b);
        } else if constexpr (std::is_same_v<T, Gemm>) {
          print_fields(out, gemm_fields(), b);
          out += fmt::format(" flags={}", flags_text(b.flags));
        } else if constexpr (std::is_same_v<T, Ntt>) {
          out += fmt::format(" op={}", ntt_op_name(b.op));
          print_fields(out, ntt_fields(), b);
        } else if constexpr (std::is_same_v<T, Vector>) {
          out += fmt::format(" op={}", vector_op_name(b.op));
          print_fields(out, vector_fields(), b);
        }
      },
      c.body);
  if (c.tag != kNoTag) out += fmt::format(" tag={}", c.tag);
  return out;
}

}  // namespace

std::string disassemble(const Program& p) {
  std::string out = fmt::format("# Photon command stream: {} commands, {} ops, {} segments\n",
                                p.commands.size(), p.ops.size(), p.segments.size());
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const auto& op = p.ops[i];
    out += fmt::format(".op {} {} {} {}", i, quote(op.name), is_bare_word(op.kind) ? op.kind : quote(op.kind),
                       quote(op.detail));
    for (const auto& [name, bytes] : op.memory) out += fmt::format(" {}={}", name, bytes);
    out += '\n';
  }
  for (const auto& s : p.segments) {
    out += fmt::format(".segment 0x{:x} hex:", s.address);
    static const char* const kHex = "0123456789abcdef";
    for (uint8_t b : s.bytes) {
      out += kHex[b >> 4];
      out += kHex[b & 15];
    }
    out += '\n';
  }
  for (size_t i = 0; i < p.commands.size(); ++i) {
    with_error_context(fmt::format("command {}", i), [&] { validate(p.commands[i]); });
    out += command_text(p.commands[i]);
    out += '\n';
  }
  return out;
}

}  // namespace photon::pcs
