// The Slurm backend (sweep/backend.h): one sbatch job array, each task a slice of the runs.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "base/error.h"
#include "sweep/backend.h"
#include "sweep/files.h"
#include "sweep/subprocess.h"

namespace photon::sweep {

namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

/// The first line of a command's error output, for a one-line error.
std::string first_line(const std::string& s) {
  const std::string t = trim(s);
  const size_t nl = t.find('\n');
  return nl == std::string::npos ? t : t.substr(0, nl);
}

}  // namespace

std::string submit_slurm(const SweepPlan& plan, const std::vector<uint64_t>& todo, const SlurmOptions& o) {
  if (!have_program("sbatch") || !have_program("squeue"))
    throw Error("--backend slurm needs Slurm's sbatch and squeue in PATH (Debian: slurm-client)");
  const fs::path sdir = fs::path(o.dir) / "slurm";
  std::error_code ec;
  fs::create_directories(sdir, ec);
  if (ec) throw Error("cannot create the directory: " + ec.message()).with_context(sdir.string());
  const uint64_t tasks = std::max<uint64_t>(1, std::min<uint64_t>(todo.size(), o.tasks ? o.tasks : 100));
  // Contiguous slices of the plan order: a task compiles each lowering group it meets once.
  nlohmann::json slices = nlohmann::json::array();
  for (uint64_t t = 0; t < tasks; ++t) {
    const size_t lo = size_t(t * todo.size() / tasks), hi = size_t((t + 1) * todo.size() / tasks);
    nlohmann::json keys = nlohmann::json::array();
    for (size_t i = lo; i < hi; ++i) keys.push_back(plan.runs[todo[i]].key);
    slices.push_back(keys);
  }
  const std::string slices_file = (sdir / "slices.json").string();
  write_atomic(slices_file, nlohmann::json({{"slices", slices}}).dump() + "\n");
  const std::string dir = fs::absolute(o.dir).lexically_normal().string();
  std::string script = "#!/bin/bash\n";
  script += "# photon sweep " + plan.name + ": " + std::to_string(todo.size()) + " runs in " +
            std::to_string(tasks) +
            " array tasks. Each task runs its slice of DIR/slurm/slices.json and writes one result file per\n"
            "# run into DIR/results; `photon sweep status DIR` merges them into DIR/results.sqlite.\n";
  script += "#SBATCH --job-name=photon-sweep\n";
  script += "#SBATCH --array=0-" + std::to_string(tasks - 1) + "\n";
  script += "#SBATCH --output=" + dir + "/slurm/task-%A_%a.out\n";
  script += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  script += "exec " + shell_quote(o.photon_exe) + " sweep worker " + shell_quote(dir) +
            " --slice \"$SLURM_ARRAY_TASK_ID\"\n";
  const std::string job = (sdir / "job.sh").string();
  write_atomic(job, script);
  fs::permissions(job, fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read, ec);
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), o.sbatch_args.begin(), o.sbatch_args.end());
  argv.push_back(job);
  const CommandResult r = run_command(argv);
  if (r.status != 0)
    throw Error("sbatch failed: " + first_line(r.err.empty() ? r.out : r.err)).with_context(job);
  std::string id = trim(r.out);
  id = id.substr(0, id.find(';'));  // "--parsable" prints "jobid" or "jobid;cluster"
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw Error("sbatch printed no job id: '" + trim(r.out) + "'").with_context(job);
  return id;
}

std::string slurm_job_state(const std::string& job_id) {
  const CommandResult r = run_command({"squeue", "-h", "-j", job_id, "-o", "%T"});
  if (r.status != 0) return "";  // "Invalid job id specified": it has left the queue
  std::map<std::string, int> states;
  std::string line;
  for (char c : r.out) {
    if (c == '\n') {
      if (!trim(line).empty()) states[trim(line)]++;
      line.clear();
    } else {
      line += c;
    }
  }
  if (!trim(line).empty()) states[trim(line)]++;
  std::string out;
  for (const auto& [s, n] : states) out += (out.empty() ? "" : ", ") + s + " " + std::to_string(n);
  return out;
}

void wait_slurm(const SweepPlan& plan, const std::vector<uint64_t>& todo, const SlurmOptions& o,
                const std::string& job_id, const BackendEvents& ev) {
  std::set<uint64_t> pending(todo.begin(), todo.end());
  auto scan = [&] {
    for (auto it = pending.begin(); it != pending.end();) {
      if (fs::exists(result_path(o.dir, plan.runs[*it].key))) {
        if (ev.finished) ev.finished(*it);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
  };
  auto last_poll = std::chrono::steady_clock::now() - std::chrono::seconds(10);
  uint64_t running = 0;
  while (!pending.empty()) {
    if (ev.interrupted && ev.interrupted()) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_poll >= std::chrono::seconds(2)) {
      last_poll = now;
      scan();
      const std::string state = slurm_job_state(job_id);
      if (state.empty()) {  // the job has left the queue: what is not there now will not come
        scan();
        return;
      }
      running = 0;
      const size_t at = state.find("RUNNING ");
      if (at != std::string::npos) running = std::stoull(state.substr(at + 8));
    }
    if (ev.tick) ev.tick(running);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

std::vector<uint64_t> slurm_slice(const SweepPlan& plan, const std::string& dir, uint64_t task) {
  const std::string file = (fs::path(dir) / "slurm" / "slices.json").string();
  const nlohmann::json j = read_json(file);
  if (!j.contains("slices") || !j["slices"].is_array() || task >= j["slices"].size())
    throw Error("no slice " + std::to_string(task) + " in the job's slices").with_context(file);
  std::map<std::string, uint64_t> index;
  for (const auto& r : plan.runs) index[r.key] = r.index;
  std::vector<uint64_t> out;
  for (const auto& k : j["slices"][task]) {
    auto it = index.find(k.get<std::string>());
    if (it == index.end())
      throw Error("run " + k.get<std::string>() + " of slice " + std::to_string(task) + " is not in the plan")
          .with_context(file);
    out.push_back(it->second);
  }
  return out;
}

}  // namespace photon::sweep
