// photon sweep end to end: the database against individual `photon run` reports, resume after
// a kill, a killed worker, failures recorded, refused specs and directories, export.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sweep/result_db.h"
#include "tests/cli/cli_util.h"

extern char** environ;

namespace photon_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kLenet = shared("inputs/onnx/lenet5_weights.onnx");
const std::string kResnet = shared("inputs/onnx/light_resnet50.onnx");
const std::string kGemm = src("examples/gemm.pasm");
const std::string kBase = src("configs/default.yaml");

/// A fresh directory for one test.
std::string fresh_dir(const std::string& name) {
  const std::string d = temp_path(name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string write_spec(const std::string& dir, const std::string& body,
                       const std::string& name = "spec.yaml") {
  const std::string p = dir + "/" + name;
  write_text(p, "base: " + kBase + "\n" + body);
  return p;
}

photon::sweep::Table rows(const std::string& out,
                          const std::string& sql = "SELECT * FROM results ORDER BY workload, point") {
  photon::sweep::ResultDb db(out + "/results.sqlite", false, true);
  return db.query(sql);
}

json cell(const photon::sweep::Table& t, size_t r, const std::string& col) {
  const int c = t.column(col);
  EXPECT_GE(c, 0) << "no column " << col;
  return c >= 0 ? t.rows[r][size_t(c)] : json(nullptr);
}

size_t count_files(const std::string& dir) {
  std::error_code ec;
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") ++n;
  return n;
}

/// Starts photon with `args` in the background; stdout and stderr to files.
pid_t spawn_photon(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<std::string> a = {PHOTON_BINARY};
  a.insert(a.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : a) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, PHOTON_BINARY, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int wait_exit(pid_t pid) {
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/// Waits (polling, at most 300 s) until `pred` holds.
template <typename F>
bool eventually(F pred) {
  for (int i = 0; i < 30000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

/// Processes whose command line is `photon sweep worker DIR ...`.
std::vector<pid_t> workers_of(const std::string& dir) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = slurp(e.path().string() + "/cmdline");
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(" sweep worker " + dir + " ") != std::string::npos) out.push_back(pid_t(std::stol(name)));
  }
  return out;
}

json strip_wall(json j) {
  j.erase("wall_time_s");
  return j;
}

TEST(SweepCli, DatabaseRowsAndReportsEqualPhotonRun) {
  const std::string d = fresh_dir("rows");
  const std::string spec = write_spec(d, "workloads: [" + kLenet + ", " + kGemm +
                                             "]\ngrid:\n"
                                             "  optical_gemm.rows: [16, 32]\n  hbm.tRCD: [12, 16]\n");
  const CliResult r = photon("sweep " + spec + " --out " + d + "/out -j 2 -q");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto t = rows(d + "/out");
  ASSERT_EQ(t.rows.size(), 8u);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    ASSERT_EQ(cell(t, i, "status"), "ok");
    // The sweep names a workload by its normalised path; so does this run.
    const std::string file = fs::path(cell(t, i, "workload") == "gemm" ? kGemm : kLenet).lexically_normal();
    const std::string report = temp_path("row_report.json");
    const CliResult run =
        photon("run --config " + kBase + " --workload " + file +
               " --set optical_gemm.rows=" + cell(t, i, "optical_gemm.rows").dump() +
               " --set hbm.tRCD=" + cell(t, i, "hbm.tRCD").dump() + " --report " + report + " -q");
    ASSERT_EQ(run.status, 0) << run.err;
    const json rep = json::parse(slurp(report));
    EXPECT_EQ(cell(t, i, "latency_ns"), rep["simulated_time_ns"]);
    EXPECT_EQ(cell(t, i, "energy_pj"), rep["energy_pj"]["total"]);
    EXPECT_EQ(cell(t, i, "area_mm2"), rep["area_mm2"]["total"]);
    EXPECT_EQ(cell(t, i, "hbm_bytes_read"), rep["hbm"]["bytes_read"]);
    EXPECT_EQ(cell(t, i, "hbm_bandwidth_gbps"), rep["hbm"]["avg_bandwidth_gbps"]);
    for (const auto& [u, v] : rep["units"].items()) EXPECT_EQ(cell(t, i, "util_" + u), v["utilization"]) << u;
    // The sweep keeps the whole report: it is photon run's, wall time apart.
    const json kept = json::parse(slurp(d + "/out/" + cell(t, i, "report").get<std::string>()));
    EXPECT_TRUE(strip_wall(kept) == strip_wall(rep))
        << "the kept report differs: " << json::diff(strip_wall(rep), strip_wall(kept)).dump();
  }
  // The area of a report adds up.
  const json rep = json::parse(slurp(d + "/out/" + cell(t, 0, "report").get<std::string>()));
  double sum = 0;
  for (const auto& [u, v] : rep["area_mm2"].items())
    if (u != "total") {
      sum += v.get<double>();
      EXPECT_EQ(rep["units"][u]["area_mm2"], v) << u;
    }
  EXPECT_NEAR(rep["area_mm2"]["total"].get<double>(), sum, 1e-9);
}

TEST(SweepCli, ResumeAfterKillRunsOnlyWhatIsMissing) {
  const std::string d = fresh_dir("resume");
  const std::string spec =
      write_spec(d, "workloads: [" + kResnet + "]\ngrid:\n  hbm.tRCD: {from: 10, to: 21, step: 1}\n");
  const std::string out = d + "/out";
  const pid_t pid = spawn_photon({"sweep", spec, "--out", out, "-j", "1"}, d + "/o1", d + "/e1");
  ASSERT_TRUE(eventually([&] { return count_files(out + "/results") >= 3; }));
  kill(pid, SIGKILL);
  wait_exit(pid);
  // The worker finishes its run in hand and then stops (its pipe is gone).
  ASSERT_TRUE(eventually([&] { return workers_of(out).empty(); }));
  const size_t before = count_files(out + "/results");
  ASSERT_LT(before, 12u);
  std::map<std::string, std::string> kept;
  for (const auto& e : fs::directory_iterator(out + "/results")) kept[e.path()] = slurp(e.path());
  const CliResult r = photon("sweep " + spec + " --out " + out + " -j 2 --resume");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find(std::to_string(12 - before) + " runs to do (" + std::to_string(before) +
                       " already have results)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(rows(out).rows.size(), 12u);
  for (const auto& [p, text] : kept) EXPECT_EQ(slurp(p), text) << "a finished run was run again: " << p;
}

TEST(SweepCli, AKilledWorkerLosesNoRun) {
  const std::string d = fresh_dir("worker_kill");
  const std::string spec =
      write_spec(d, "workloads: [" + kResnet + "]\ngrid:\n  vector.lanes: [16, 32, 64, 128, 256, 512]\n");
  const std::string out = d + "/out";
  const pid_t pid = spawn_photon({"sweep", spec, "--out", out, "-j", "1"}, d + "/o1", d + "/e1");
  std::vector<pid_t> ws;
  ASSERT_TRUE(
      eventually([&] { return count_files(out + "/results") >= 1 && !(ws = workers_of(out)).empty(); }));
  kill(ws[0], SIGKILL);
  EXPECT_EQ(wait_exit(pid), 0) << slurp(d + "/e1");
  const auto t = rows(out);
  ASSERT_EQ(t.rows.size(), 6u);
  for (size_t i = 0; i < t.rows.size(); ++i) EXPECT_EQ(cell(t, i, "status"), "ok") << cell(t, i, "error");
}

TEST(SweepCli, InterruptStopsCleanlyAndResumes) {
  const std::string d = fresh_dir("interrupt");
  const std::string spec =
      write_spec(d, "workloads: [" + kResnet + "]\ngrid:\n  hbm.tRP: {from: 10, to: 17, step: 1}\n");
  const std::string out = d + "/out";
  const pid_t pid = spawn_photon({"sweep", spec, "--out", out, "-j", "1"}, d + "/o1", d + "/e1");
  ASSERT_TRUE(eventually([&] { return count_files(out + "/results") >= 2; }));
  kill(pid, SIGINT);
  EXPECT_EQ(wait_exit(pid), 130);
  EXPECT_NE(slurp(d + "/e1").find("interrupted;"), std::string::npos) << slurp(d + "/e1");
  EXPECT_TRUE(workers_of(out).empty());
  const size_t done = rows(out).rows.size();
  EXPECT_GE(done, 2u);
  const CliResult r = photon("sweep " + spec + " --out " + out + " --resume -q");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(rows(out).rows.size(), 8u);
}

TEST(SweepCli, FailuresAreRecordedAndTheSweepGoesOn) {
  const std::string d = fresh_dir("failures");
  // 1 KiB of scratchpad cannot hold LeNet's tiles (a lowering error); the other point runs.
  std::string spec =
      write_spec(d, "workloads: [" + kLenet + ", " + kGemm +
                        "]\n"
                        "points:\n  - {scratchpad.size_kib: 1}\n  - {scratchpad.size_kib: 8192}\n");
  CliResult r = photon("sweep " + spec + " --out " + d + "/out -q");
  ASSERT_EQ(r.status, 0) << r.err;
  auto t = rows(d + "/out");
  ASSERT_EQ(t.rows.size(), 4u);
  std::map<std::string, std::pair<std::string, std::string>> st;  // "workload/point" -> status, error
  for (size_t i = 0; i < 4; ++i)
    st[cell(t, i, "workload").get<std::string>() + "/" + cell(t, i, "point").dump()] = {
        cell(t, i, "status"), cell(t, i, "error").is_null() ? "" : cell(t, i, "error").get<std::string>()};
  EXPECT_EQ(st["lenet5_weights/0"].first, "error");
  EXPECT_NE(st["lenet5_weights/0"].second.find("scratchpad"), std::string::npos)
      << st["lenet5_weights/0"].second;
  EXPECT_EQ(st["lenet5_weights/1"].first, "ok");
  EXPECT_EQ(st["gemm/1"].first, "ok");
  // ViT-B/16 takes about a second of simulation: 50 ms is a timeout on any machine.
  spec = write_spec(d,
                    "workloads: [" + shared("inputs/onnx/vit_b_16.onnx") +
                        "]\ntimeout_s: 0.05\n"
                        "points:\n  - {hbm.tRCD: 14}\n",
                    "timeout.yaml");
  r = photon("sweep " + spec + " --out " + d + "/out2 -q");
  ASSERT_EQ(r.status, 0) << r.err;
  t = rows(d + "/out2");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(cell(t, 0, "status"), "timeout");
  EXPECT_EQ(cell(t, 0, "error"), "did not finish within timeout_s = 0.05 s");
  EXPECT_TRUE(cell(t, 0, "latency_ns").is_null());
}

TEST(SweepCli, BadSpecsAreOneLineAndTouchNothing) {
  const std::string d = fresh_dir("bad");
  std::string junk(2000, '\0');
  for (size_t i = 0; i < junk.size(); ++i) junk[i] = char((i * 2654435761u) >> 13);
  write_text(d + "/garbage.onnx", junk);
  struct Case {
    std::string body, error;
  } cases[] = {
      {"workloads: [" + kGemm + "]\ngrid:\n  optical_gemm.rows: [16, 99999]\n",
       "point 1 (optical_gemm.rows=99999): optical_gemm.rows: value 99999 out of range [1, 4096]"},
      {"workloads: [" + kGemm + "]\ngrid:\n  optical_gemm.rowz: [16]\n",
       "unknown configuration key 'optical_gemm.rowz'"},
      {"workloads: [" + kGemm + "]\ngrid:\n  optical_gemm.rows: []\n", "empty list of values"},
      {"workloads: [" + kGemm + "]\ngrid: {hbm.tRCD: [12]}\npoints: [{hbm.tRCD: 14}]\n",
       "parameter hbm.tRCD is given twice (in grid and in points)"},
      {"workloads: [" + kGemm + "]\ngrid: {hbm.tRCD: [12]}\nmetrics: {x: units.optical_gemm.utilisation}\n",
       "metrics: x: report path 'units.optical_gemm.utilisation' does not exist"},
      {"workloads: [" + d + "/missing.onnx]\ngrid: {hbm.tRCD: [12]}\n", "no such file"},
      // Read by its frontend before any run: a model that does not parse, a shape naming no input.
      {"workloads: [" + d + "/garbage.onnx]\ngrid: {hbm.tRCD: [12]}\n",
       "workloads: garbage: " + d + "/garbage.onnx: not an ONNX model"},
      {"workloads: [{file: " + kLenet + ", shapes: {no_such_input: 1x1x28x28}}]\ngrid: {hbm.tRCD: [12]}\n",
       "no graph input named 'no_such_input'"},
  };
  for (const auto& c : cases) {
    const std::string spec = write_spec(d, c.body);
    const CliResult r = photon("sweep " + spec + " --out " + d + "/out");
    EXPECT_EQ(r.status, 1) << c.body;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(d + "/out")) << "a refused spec created its directory";
  }
  // An output directory that cannot be one.
  write_text(d + "/file", "x");
  const std::string spec = write_spec(d, "workloads: [" + kGemm + "]\ngrid: {hbm.tRCD: [12]}\n");
  const CliResult r = photon("sweep " + spec + " --out " + d + "/file/out");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(d + "/file/out"), std::string::npos) << r.err;
}

TEST(SweepCli, DirectoriesOfOtherSweepsAreRefusedUnlessForced) {
  const std::string d = fresh_dir("dirs");
  const std::string a = write_spec(d, "workloads: [" + kGemm + "]\ngrid: {hbm.tRCD: [12, 14]}\n", "a.yaml");
  const std::string a2 =
      write_spec(d, "workloads: [" + kGemm + "]\ngrid: {hbm.tRCD: [12, 14, 16, 18]}\n", "a2.yaml");
  const std::string b = write_spec(d, "workloads: [" + kGemm + "]\ngrid: {hbm.tRP: [12, 14]}\n", "b.yaml");
  const std::string out = d + "/out";
  ASSERT_EQ(photon("sweep " + a + " --out " + out + " -q").status, 0);
  CliResult r = photon("sweep " + a + " --out " + out + " -q");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("already holds this sweep's results; --resume continues it"), std::string::npos)
      << r.err;
  r = photon("sweep " + b + " --out " + out + " --resume -q");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("holds the results of another sweep"), std::string::npos) << r.err;
  // An extended grid is the same sweep: only the new points run.
  r = photon("sweep " + a2 + " --out " + out + " --resume");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("2 runs to do (2 already have results)"), std::string::npos) << r.err;
  EXPECT_EQ(rows(out).rows.size(), 4u);
  r = photon("sweep " + b + " --out " + out + " --force -q");
  EXPECT_EQ(r.status, 0) << r.err;
  const auto t = rows(out);
  EXPECT_EQ(t.rows.size(), 2u);
  EXPECT_GE(t.column("hbm.tRP"), 0);
  EXPECT_LT(t.column("hbm.tRCD"), 0);
}

TEST(SweepCli, ExportAndStatus) {
  const std::string d = fresh_dir("export");
  const std::string spec = write_spec(d, "workloads: [" + kLenet +
                                             "]\ngrid:\n  optical_gemm.rows: [8, 16, 32, 64]\n"
                                             "  optical_gemm.weight_mode: [stationary, streamed]\n");
  const std::string out = d + "/out";
  ASSERT_EQ(photon("sweep " + spec + " --out " + out + " -q").status, 0);
  const CliResult e = photon("sweep export " + out + " --csv " + d + "/r.csv --json " + d + "/r.json");
  ASSERT_EQ(e.status, 0) << e.err;
  const std::string csv = slurp(d + "/r.csv");
  EXPECT_EQ(count_lines(csv), 9);
  const std::string header = csv.substr(0, csv.find('\r'));
  for (const char* col :
       {"key", "point", "workload", "optical_gemm.rows", "optical_gemm.weight_mode", "latency_ns",
        "energy_pj", "area_mm2", "util_optical_gemm", "status", "pareto_latency_energy"})
    EXPECT_NE(header.find(col), std::string::npos) << col;
  const json j = json::parse(slurp(d + "/r.json"));
  ASSERT_EQ(j.size(), 8u);
  int front = 0;
  for (const auto& row : j) front += row["pareto_latency_energy"].get<int>();
  const auto p = rows(out, "SELECT COUNT(*) FROM pareto WHERE front = 'latency_energy'");
  EXPECT_EQ(front, p.rows[0][0].get<int>());
  EXPECT_GE(front, 1);
  // Plots: PNG and SVG of each figure, drawn by the project's script with matplotlib.
  const CliResult pl = photon("sweep plot " + out);
  ASSERT_EQ(pl.status, 0) << pl.err;
  for (const char* fig : {"pareto_latency_energy", "pareto_latency_area", "sensitivity", "utilization"}) {
    const std::string base = out + "/plots/lenet5_weights_" + fig;
    EXPECT_EQ(slurp(base + ".png").substr(1, 3), "PNG") << base;
    EXPECT_NE(slurp(base + ".svg").find("<svg"), std::string::npos) << base;
  }
  const std::string report =
      out + "/" + rows(out).rows[0][size_t(rows(out).column("report"))].get<std::string>();
  const CliResult rl = photon("plot roofline " + report + " -o " + d + "/roof");
  ASSERT_EQ(rl.status, 0) << rl.err;
  EXPECT_EQ(slurp(d + "/roof.png").substr(1, 3), "PNG");
  EXPECT_FALSE(fs::exists(d + "/roof.data.json"));
  const CliResult s = photon("sweep status " + out);
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.out.find("8 runs (8 design points, 0 skipped by constraints, 1 workload); 8 ok"),
            std::string::npos)
      << s.out;
}

TEST(SweepCli, AFullDiskIsOneClearError) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
  const std::string d = fresh_dir("full");
  const std::string mnt = d + "/mnt";
  fs::create_directories(mnt);
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=128k") != 0) GTEST_SKIP() << "cannot mount tmpfs here";
  const std::string spec =
      write_spec(d, "workloads: [" + kLenet + "]\ngrid:\n  hbm.tRCD: {from: 10, to: 40, step: 1}\n");
  const CliResult r = photon("sweep " + spec + " --out " + mnt + "/out -q");
  umount(mnt.c_str());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace photon_test
