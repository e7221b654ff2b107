// regs_gen: turns platform/regs/registers.yaml, the one description of Photon's hardware
// interface, into every view of it, so that no two can disagree:
//   photon_regs.h   C header for the firmware: block bases, register offsets, field shifts and
//                   masks, reset values, the enumerations (opcodes, unit error codes, firmware
//                   states and errors) and the unit tables (queue bases, opcodes, IRQ bits)
//   regs_table.inc  the C++ table the models' RegisterBlock instances are built from
//   regs_view.h     the typed C++ view the models use instead of names: RegRef per register,
//                   Field per bit field, the enumerations as enum classes, the unit table
// The description is checked first; the build fails on overlapping register offsets or block
// instances, duplicate names, fields outside their register or overlapping each other, duplicate
// enumeration values, and units without their queue block or interrupt bits.
//   usage: regs_gen registers.yaml photon_regs.h regs_table.inc regs_view.h
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace {

struct Field {
  std::string name, doc;
  unsigned lsb = 0, width = 0;
};
struct Reg {
  std::string name, access, doc;
  uint64_t offset = 0, count = 1, reset = 0;
  std::vector<Field> fields;
};
struct Block {
  std::string name, doc;
  std::vector<std::pair<std::string, uint64_t>> instances;  // (instance, base)
  std::vector<Reg> regs;
  uint64_t size() const {
    uint64_t s = 0;
    for (const auto& r : regs) s = std::max(s, r.offset + 4 * r.count);
    return s;
  }
};
struct EnumValue {
  std::string name, doc;
  uint64_t value = 0;
};
struct Enum {
  std::string name, c_prefix, doc;
  std::vector<EnumValue> values;
};
struct Unit {
  std::string name, opcode, doc;
};
struct Description {
  std::vector<Block> blocks;
  std::vector<Enum> enums;
  std::vector<Unit> units;
  std::vector<EnumValue> constants;
};

[[noreturn]] void fail(const std::string& why) { throw std::runtime_error(why); }

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::uppercase << std::hex << v << "u";
  return os.str();
}

std::string text(const YAML::Node& n, const char* key, const std::string& where) {
  if (!n[key]) fail(where + ": missing '" + key + "'");
  return n[key].as<std::string>();
}

uint64_t number(const YAML::Node& n, const char* key, const std::string& where) {
  if (!n[key]) fail(where + ": missing '" + key + "'");
  return n[key].as<uint64_t>();
}

std::string opt_text(const YAML::Node& n, const char* key) { return n[key] ? n[key].as<std::string>() : ""; }

Description parse(const YAML::Node& root) {
  Description d;
  for (const auto& b : root["blocks"]) {
    Block blk;
    blk.name = text(b, "name", "block");
    blk.doc = opt_text(b, "doc");
    const std::string where = "block " + blk.name;
    if (b["instances"]) {
      for (const auto& kv : b["instances"])
        blk.instances.emplace_back(kv.first.as<std::string>(), kv.second.as<uint64_t>());
    } else {
      blk.instances.emplace_back(blk.name, number(b, "base", where));
    }
    for (const auto& r : b["registers"]) {
      Reg reg;
      reg.name = text(r, "name", where + " register");
      const std::string rw = where + " register " + reg.name;
      reg.offset = number(r, "offset", rw);
      reg.count = r["count"] ? r["count"].as<uint64_t>() : 1;
      reg.access = text(r, "access", rw);
      reg.reset = r["reset"] ? r["reset"].as<uint64_t>() : 0;
      reg.doc = opt_text(r, "doc");
      for (const auto& f : r["fields"]) {
        Field fl;
        fl.name = text(f, "name", rw + " field");
        fl.lsb = unsigned(number(f, "lsb", rw + " field " + fl.name));
        fl.width = unsigned(number(f, "width", rw + " field " + fl.name));
        fl.doc = opt_text(f, "doc");
        reg.fields.push_back(fl);
      }
      blk.regs.push_back(reg);
    }
    d.blocks.push_back(blk);
  }
  for (const auto& e : root["enums"]) {
    Enum en;
    en.name = text(e, "name", "enum");
    en.c_prefix = text(e, "c_prefix", "enum " + en.name);
    en.doc = opt_text(e, "doc");
    for (const auto& v : e["values"])
      en.values.push_back({text(v, "name", "enum " + en.name), opt_text(v, "doc"),
                           number(v, "value", "enum " + en.name + " value")});
    d.enums.push_back(en);
  }
  for (const auto& u : root["units"])
    d.units.push_back({text(u, "name", "unit"), text(u, "opcode", "unit"), opt_text(u, "doc")});
  for (const auto& c : root["constants"])
    d.constants.push_back({text(c, "name", "constant"), opt_text(c, "doc"), number(c, "value", "constant")});
  return d;
}

const Block* find_block(const Description& d, const std::string& name) {
  for (const auto& b : d.blocks)
    if (b.name == name) return &b;
  return nullptr;
}

const Reg* find_reg(const Block& b, const std::string& name) {
  for (const auto& r : b.regs)
    if (r.name == name) return &r;
  return nullptr;
}

const Field* find_field(const Reg& r, const std::string& name) {
  for (const auto& f : r.fields)
    if (f.name == name) return &f;
  return nullptr;
}

const Enum* find_enum(const Description& d, const std::string& name) {
  for (const auto& e : d.enums)
    if (e.name == name) return &e;
  return nullptr;
}

/// Every rule the description must keep; throws naming the first violation.
void check(const Description& d) {
  static const std::set<std::string> accesses = {"ro", "rw", "wo", "w1c"};
  std::set<std::string> block_names, instance_names;
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, std::string>> windows;  // [lo, hi), name
  for (const auto& b : d.blocks) {
    if (!block_names.insert(b.name).second) fail("duplicate block name " + b.name);
    if (b.regs.empty()) fail("block " + b.name + " has no registers");
    std::set<std::string> reg_names;
    for (size_t i = 0; i < b.regs.size(); ++i) {
      const Reg& r = b.regs[i];
      const std::string rn = b.name + "." + r.name;
      if (!reg_names.insert(r.name).second) fail("duplicate register name " + rn);
      if (!accesses.count(r.access)) fail(rn + ": unknown access '" + r.access + "'");
      if (r.offset % 4) fail(rn + ": offset " + hex(r.offset) + " is not a multiple of 4");
      if (r.count == 0) fail(rn + ": count must be at least 1");
      if (r.reset > 0xFFFFFFFFull) fail(rn + ": reset value wider than 32 bits");
      for (size_t j = 0; j < i; ++j) {
        const Reg& o = b.regs[j];
        if (r.offset < o.offset + 4 * o.count && o.offset < r.offset + 4 * r.count)
          fail(b.name + ": registers " + o.name + " and " + r.name + " overlap at offset " + hex(r.offset));
      }
      std::set<std::string> field_names;
      for (size_t k = 0; k < r.fields.size(); ++k) {
        const Field& f = r.fields[k];
        if (!field_names.insert(f.name).second) fail("duplicate field name " + rn + "." + f.name);
        if (f.width == 0 || f.lsb + f.width > 32)
          fail("field " + rn + "." + f.name + " [" + std::to_string(f.lsb) + ", +" + std::to_string(f.width) +
               ") lies outside its 32-bit register");
        for (size_t m = 0; m < k; ++m) {
          const Field& g = r.fields[m];
          if (f.lsb < g.lsb + g.width && g.lsb < f.lsb + f.width)
            fail(rn + ": fields " + g.name + " and " + f.name + " overlap");
        }
      }
    }
    for (const auto& [inst, base] : b.instances) {
      if (!instance_names.insert(inst).second) fail("duplicate block instance name " + inst);
      windows.push_back({{base, base + b.size()}, b.name + (inst == b.name ? "" : "_" + inst)});
    }
  }
  for (size_t i = 0; i < windows.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (windows[i].first.first < windows[j].first.second &&
          windows[j].first.first < windows[i].first.second)
        fail("block instances " + windows[j].second + " and " + windows[i].second + " overlap at " +
             hex(windows[i].first.first));
  std::set<std::string> enum_names;
  for (const auto& e : d.enums) {
    if (!enum_names.insert(e.name).second) fail("duplicate enum " + e.name);
    std::set<std::string> names;
    std::set<uint64_t> values;
    for (const auto& v : e.values) {
      if (!names.insert(v.name).second) fail("enum " + e.name + ": duplicate name " + v.name);
      if (!values.insert(v.value).second)
        fail("enum " + e.name + ": value " + std::to_string(v.value) + " given twice (" + v.name + ")");
    }
  }
  // Units: each has a QUEUE instance, DONE/ERR bits in IRQ.PENDING and an Opcode value.
  const Block* queue = find_block(d, "QUEUE");
  const Block* irq = find_block(d, "IRQ");
  const Enum* opcodes = find_enum(d, "Opcode");
  if (!d.units.empty() && (!queue || !irq || !opcodes))
    fail("units need the QUEUE and IRQ blocks and the Opcode enum");
  const Reg* pending = irq ? find_reg(*irq, "PENDING") : nullptr;
  std::set<std::string> unit_names;
  for (const auto& u : d.units) {
    if (!unit_names.insert(u.name).second) fail("duplicate unit " + u.name);
    bool has_queue = false;
    for (const auto& inst : queue->instances) has_queue = has_queue || inst.first == u.name;
    if (!has_queue) fail("unit " + u.name + " has no QUEUE instance");
    for (const char* suffix : {"_DONE", "_ERR"})
      if (!pending || !find_field(*pending, u.name + suffix))
        fail("unit " + u.name + " has no IRQ.PENDING field " + u.name + suffix);
    bool has_op = false;
    for (const auto& v : opcodes->values) has_op = has_op || v.name == u.opcode;
    if (!has_op) fail("unit " + u.name + ": opcode " + u.opcode + " is not in enum Opcode");
  }
}

std::string access_enum(const std::string& a) {
  if (a == "ro") return "RegAccess::ReadOnly";
  if (a == "rw") return "RegAccess::ReadWrite";
  if (a == "wo") return "RegAccess::WriteOnly";
  return "RegAccess::WriteOneToClear";
}

uint64_t unit_opcode(const Description& d, const Unit& u) {
  for (const auto& v : find_enum(d, "Opcode")->values)
    if (v.name == u.opcode) return v.value;
  return 0;
}

uint64_t queue_base(const Description& d, const Unit& u) {
  for (const auto& [inst, base] : find_block(d, "QUEUE")->instances)
    if (inst == u.name) return base;
  return 0;
}

unsigned irq_bit(const Description& d, const Unit& u, const char* suffix) {
  return find_field(*find_reg(*find_block(d, "IRQ"), "PENDING"), u.name + suffix)->lsb;
}

std::string c_header(const Description& d) {
  std::ostringstream h;
  h << "/* Generated by regs_gen from platform/regs/registers.yaml. Do not edit. */\n"
    << "#ifndef PHOTON_REGS_H\n#define PHOTON_REGS_H\n\n";
  for (const auto& b : d.blocks) {
    h << "/* " << b.name << ": " << b.doc << " */\n";
    for (const auto& [inst, base] : b.instances)
      h << "#define PHOTON_" << (inst == b.name ? b.name : b.name + "_" + inst) << "_BASE " << hex(base)
        << "\n";
    for (const auto& r : b.regs) {
      const std::string p = "PHOTON_" + b.name + "_" + r.name;
      h << "/* " << r.name << " (" << r.access << "): " << r.doc << " */\n";
      if (r.count > 1) {
        h << "#define " << p << "(n) (" << hex(r.offset) << " + 4u * (n))\n";
        h << "#define " << p << "_COUNT " << r.count << "u\n";
      } else {
        h << "#define " << p << " " << hex(r.offset) << "\n";
      }
      h << "#define " << p << "_RESET " << hex(r.reset) << "\n";
      for (const auto& f : r.fields) {
        const uint64_t mask = ((f.width >= 32 ? 0xFFFFFFFFull : ((1ull << f.width) - 1)) << f.lsb);
        h << "#define " << p << "_" << f.name << "_SHIFT " << f.lsb << "u  /* " << f.doc << " */\n";
        h << "#define " << p << "_" << f.name << "_MASK " << hex(mask) << "\n";
      }
    }
    h << "\n";
  }
  for (const auto& e : d.enums) {
    h << "/* " << e.name << ": " << e.doc << " */\n";
    for (const auto& v : e.values) {
      h << "#define PHOTON_" << e.c_prefix << "_" << v.name << " " << hex(v.value);
      if (!v.doc.empty()) h << "  /* " << v.doc << " */";
      h << "\n";
    }
    h << "\n";
  }
  h << "/* Command-executing units in queue order (queue id = index). */\n"
    << "#define PHOTON_QUEUE_COUNT " << d.units.size() << "u\n";
  auto list = [&](const char* macro, auto value) {
    h << "#define " << macro << " {";
    for (size_t i = 0; i < d.units.size(); ++i) h << (i ? ", " : "") << value(d.units[i]);
    h << "}\n";
  };
  list("PHOTON_UNIT_QUEUE_BASES", [&](const Unit& u) { return "PHOTON_QUEUE_" + u.name + "_BASE"; });
  list("PHOTON_UNIT_OPCODES", [&](const Unit& u) { return hex(unit_opcode(d, u)); });
  uint64_t done = 0, err = 0;
  for (const auto& u : d.units) {
    h << "#define PHOTON_UNIT_" << u.name << "_QUEUE " << (&u - d.units.data()) << "u  /* " << u.doc
      << " */\n";
    done |= 1ull << irq_bit(d, u, "_DONE");
    err |= 1ull << irq_bit(d, u, "_ERR");
  }
  h << "#define PHOTON_UNIT_DONE_BITS " << hex(done) << "  /* IRQ.PENDING: every unit's DONE */\n"
    << "#define PHOTON_UNIT_ERR_BITS " << hex(err) << "  /* IRQ.PENDING: every unit's ERR */\n\n";
  for (const auto& c : d.constants) {
    h << "#define PHOTON_" << c.name << " " << c.value << "u";
    if (!c.doc.empty()) h << "  /* " << c.doc << " */";
    h << "\n";
  }
  h << "\n#endif /* PHOTON_REGS_H */\n";
  return h.str();
}

std::string cpp_table(const Description& d) {
  std::ostringstream t;
  t << "// Generated by regs_gen from platform/regs/registers.yaml. Do not edit.\n"
    << "// {block id, block, instance, instance base, register, offset, count, access, reset}\n";
  for (size_t bi = 0; bi < d.blocks.size(); ++bi) {
    const Block& b = d.blocks[bi];
    for (const auto& [inst, base] : b.instances)
      for (const auto& r : b.regs)
        t << "{" << bi << ", \"" << b.name << "\", \"" << inst << "\", " << hex(base) << ", \"" << r.name
          << "\", " << hex(r.offset) << ", " << r.count << ", " << access_enum(r.access) << ", "
          << hex(r.reset) << "},\n";
  }
  return t.str();
}

std::string cpp_view(const Description& d) {
  std::ostringstream v;
  v << "// Generated by regs_gen from platform/regs/registers.yaml. Do not edit.\n"
    << "// The typed C++ view of the hardware interface: models name registers and fields by\n"
    << "// these constants (RegisterBlock accepts a RegRef), never by strings.\n"
    << "#pragma once\n\n#include <cstdint>\n\nnamespace photon::regs {\n\n"
    << "/// A register: its block, its position in the block's table, its byte offset, its words.\n"
    << "struct RegRef {\n  uint16_t block, index;\n  uint32_t offset, count;\n};\n\n"
    << "/// A bit field of a register: least significant bit and width.\n"
    << "struct Field {\n  unsigned lsb, width;\n"
    << "  constexpr uint32_t mask() const { return uint32_t(((width >= 32 ? ~0ull : (1ull << width) - 1)) << "
       "lsb); }\n"
    << "  constexpr uint32_t get(uint32_t reg) const { return (reg & mask()) >> lsb; }\n"
    << "  constexpr uint32_t put(uint32_t value) const { return (value << lsb) & mask(); }\n};\n\n";
  for (size_t bi = 0; bi < d.blocks.size(); ++bi) {
    const Block& b = d.blocks[bi];
    v << "/// " << b.doc << "\nnamespace " << b.name << " {\n"
      << "constexpr uint16_t kBlock = " << bi << ";\n"
      << "constexpr uint32_t kSizeBytes = " << hex(b.size()) << ";\n";
    for (const auto& [inst, base] : b.instances)
      v << "constexpr uint32_t kBase" << (inst == b.name ? std::string() : "_" + inst) << " = " << hex(base)
        << ";\n";
    for (size_t ri = 0; ri < b.regs.size(); ++ri) {
      const Reg& r = b.regs[ri];
      v << "/// " << r.doc << " (" << r.access << ")\n"
        << "constexpr RegRef " << r.name << "{" << bi << ", " << ri << ", " << hex(r.offset) << ", "
        << r.count << "};\n";
      for (const auto& f : r.fields)
        v << "constexpr Field " << r.name << "_" << f.name << "{" << f.lsb << ", " << f.width << "};  ///< "
          << f.doc << "\n";
    }
    v << "}  // namespace " << b.name << "\n\n";
  }
  for (const auto& e : d.enums) {
    v << "/// " << e.doc << "\nenum class " << e.name << " : uint32_t {\n";
    for (const auto& val : e.values) {
      v << "  " << val.name << " = " << hex(val.value) << ",";
      if (!val.doc.empty()) v << "  ///< " << val.doc;
      v << "\n";
    }
    v << "};\n\n";
  }
  v << "/// A command-executing unit's hardware interface (registers.yaml `units`, queue order).\n"
    << "struct UnitHw {\n  const char* name;     ///< QUEUE instance name\n"
    << "  uint32_t queue_base;  ///< control-bus address of its QUEUE block\n"
    << "  uint8_t opcode;       ///< the command opcode routed to its queue\n"
    << "  uint8_t done_bit, err_bit;  ///< IRQ.PENDING bits\n};\n"
    << "/// Queue ids: the units in queue order.\nenum class QueueId : uint8_t {\n";
  for (const auto& u : d.units)
    v << "  " << u.name << " = " << (&u - d.units.data()) << ",  ///< " << u.doc << "\n";
  v << "};\n"
    << "constexpr unsigned kUnitCount = " << d.units.size() << ";\n"
    << "constexpr UnitHw kUnits[kUnitCount] = {\n";
  for (const auto& u : d.units)
    v << "    {\"" << u.name << "\", " << hex(queue_base(d, u)) << ", " << hex(unit_opcode(d, u)) << ", "
      << irq_bit(d, u, "_DONE") << ", " << irq_bit(d, u, "_ERR") << "},\n";
  v << "};\n\n}  // namespace photon::regs\n";
  return v.str();
}

void write_if_changed(const char* path, const std::string& text) {
  std::ifstream in(path);
  std::stringstream old;
  old << in.rdbuf();
  if (in && old.str() == text) return;
  std::ofstream out(path);
  out << text;
  if (!out) fail(std::string("cannot write ") + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: regs_gen registers.yaml photon_regs.h regs_table.inc regs_view.h\n";
    return 2;
  }
  try {
    const Description d = parse(YAML::LoadFile(argv[1]));
    check(d);
    write_if_changed(argv[2], c_header(d));
    write_if_changed(argv[3], cpp_table(d));
    write_if_changed(argv[4], cpp_view(d));
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
