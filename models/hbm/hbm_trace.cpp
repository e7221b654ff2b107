#include "models/hbm/hbm_trace.h"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/error.h"
#include "base/file_read.h"
#include "models/hbm/hbm_controller.h"

namespace photon {

namespace {

/// Largest request cycle: 2^62 tCK, so that cycle arithmetic (completion, refresh grid, drain)
/// cannot overflow 64 bits.
constexpr uint64_t kMaxTraceCycle = uint64_t(1) << 62;

struct TraceReq {
  uint64_t addr;
  uint64_t cycle;
  bool is_write;
};

[[noreturn]] void fail(const std::string& name, size_t line, const std::string& what) {
  throw Error(what).with_context(name + ":" + std::to_string(line));
}

uint64_t parse_hex(const std::string& tok, const std::string& name, size_t line) {
  size_t i = 0;
  if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) i = 2;
  if (i == tok.size() || tok.size() - i > 16) fail(name, line, "bad address '" + tok + "'");
  uint64_t v = 0;
  for (; i < tok.size(); ++i) {
    const char c = char(std::tolower(static_cast<unsigned char>(tok[i])));
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      fail(name, line, "bad address '" + tok + "' (expected hexadecimal)");
    v = (v << 4) | uint64_t(d);
  }
  return v;
}

uint64_t parse_cycle(const std::string& tok, const std::string& name, size_t line) {
  if (tok.empty()) fail(name, line, "bad cycle '" + tok + "'");
  uint64_t v = 0;
  for (char c : tok) {
    if (c < '0' || c > '9') fail(name, line, "bad cycle '" + tok + "' (expected a decimal count)");
    v = v * 10 + uint64_t(c - '0');
    if (v > kMaxTraceCycle)
      fail(name, line,
           "cycle " + tok + " is beyond the largest cycle the player handles (2^62 = " +
               std::to_string(kMaxTraceCycle) + ")");
  }
  return v;
}

std::vector<TraceReq> parse(std::istream& in, const std::string& name, uint64_t capacity) {
  std::vector<TraceReq> reqs;
  std::string text;
  size_t line = 0;
  uint64_t prev = 0;
  while (std::getline(in, text)) {
    ++line;
    std::istringstream ls(text);
    std::string a, op, cyc, extra;
    if (!(ls >> a) || a[0] == '#') continue;
    if (!(ls >> op)) fail(name, line, "missing command (expected READ or WRITE)");
    if (!(ls >> cyc)) fail(name, line, "missing cycle");
    if (ls >> extra) fail(name, line, "unexpected '" + extra + "' after the cycle");
    TraceReq r;
    r.addr = parse_hex(a, name, line);
    if (r.addr >= capacity) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "address 0x%llx is beyond the HBM capacity of %llu bytes",
                    static_cast<unsigned long long>(r.addr), static_cast<unsigned long long>(capacity));
      fail(name, line, std::string(buf) + " (the hbm organisation keys set it)");
    }
    if (op == "READ")
      r.is_write = false;
    else if (op == "WRITE")
      r.is_write = true;
    else
      fail(name, line, "bad command '" + op + "' (expected READ or WRITE)");
    r.cycle = parse_cycle(cyc, name, line);
    if (!reqs.empty() && r.cycle < prev)
      fail(name, line, "non-monotonic cycle " + std::to_string(r.cycle) + " after " + std::to_string(prev));
    prev = r.cycle;
    reqs.push_back(r);
  }
  if (in.bad()) throw Error("read error").with_context(name);
  return reqs;
}

}  // namespace

nlohmann::json run_hbm_trace(const HbmConfig& cfg, std::istream& in, const std::string& name) {
  cfg.validate();
  const std::vector<TraceReq> reqs = parse(in, name, cfg.capacity_bytes());
  HbmController hbm(cfg);
  uint64_t t = 0, first_issue = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const TraceReq& r = reqs[i];
    if (r.cycle > t) t = r.cycle;
    if (!hbm.has_room(r.addr, r.is_write, t)) t = hbm.wait_for_room(r.addr, r.is_write);
    const uint64_t issued = hbm.enqueue(r.addr, r.is_write, t);
    if (i == 0) first_issue = issued;
    t = issued + 1;  // at most one request per cycle
  }
  const uint64_t completion = reqs.empty() ? 0 : hbm.finish();
  const HbmCounters c = hbm.counters();
  const double span_ns = double(completion - first_issue) * cfg.tck_ns;
  nlohmann::json j;
  j["trace"] = name;
  j["requests"] = reqs.size();
  j["reads"] = c.reads;
  j["writes"] = c.writes;
  j["first_issue_cycle"] = first_issue;
  j["completion_cycle"] = completion;
  j["drain_cycle"] = reqs.empty() ? 0 : hbm.drain_cycle();
  j["bandwidth_gbps"] = span_ns > 0 ? double(reqs.size()) * double(cfg.access_bytes()) / span_ns : 0.0;
  j["avg_read_latency_ns"] =
      c.reads_done ? double(c.total_read_latency) / double(c.reads_done) * cfg.tck_ns : 0.0;
  j["row_hit_rate"] = reqs.empty() ? 0.0 : double(c.row_hits) / double(reqs.size());
  j["activates"] = c.activates;
  j["precharges"] = c.precharges;
  j["refreshes"] = c.refreshes;
  j["read_cmds"] = c.read_cmds;
  j["write_cmds"] = c.write_cmds;
  j["energy_pj"] = hbm.energy_pj();
  return j;
}

nlohmann::json run_hbm_trace(const HbmConfig& cfg, const std::string& trace_path) {
  regular_file_size(trace_path, "a DRAM trace file");  // not a directory, a device or a FIFO
  std::ifstream in(trace_path, std::ios::binary);
  if (!in) throw Error("cannot open trace file").with_context(trace_path);
  return run_hbm_trace(cfg, in, trace_path);
}

}  // namespace photon
