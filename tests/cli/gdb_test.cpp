// photon run --gdb: Debian's gdb-multiarch in batch mode against the rv32 firmware CPU (break at
// the dispatch function, read registers, step, continue to the end), and a raw remote-protocol
// client for Ctrl-C (GDB manual, "Remote Serial Protocol", "Interrupts").
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>

#include "cli_util.h"

extern char** environ;

namespace {

using photon_test::slurp;
using photon_test::src;
using photon_test::temp_path;

std::string build_dir() {
  const std::string bin = PHOTON_BINARY;
  return bin.substr(0, bin.rfind('/'));
}

/// photon run in the background with --gdb 0; the port it prints on stderr.
struct Served {
  pid_t pid = -1;
  int port = 0;
  std::string err_file;
};

Served start_photon(const std::string& args) {
  Served s;
  s.err_file = temp_path("gdb_err_" + std::to_string(::getpid()) + std::to_string(rand()));
  const std::string cmd =
      "exec " + std::string(PHOTON_BINARY) + " " + args + " --gdb 0 >/dev/null 2>" + s.err_file;
  const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
  EXPECT_EQ(::posix_spawn(&s.pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  // The server prints its port before it waits for GDB (bounded: photon gives up nowhere else).
  const std::regex re("127\\.0\\.0\\.1:([0-9]+)");
  for (int i = 0; i < 2000 && !s.port; ++i) {
    std::smatch m;
    const std::string err = slurp(s.err_file);
    if (std::regex_search(err, m, re))
      s.port = std::stoi(m[1]);
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return s;
}

int finish(Served& s) {
  int st = 0;
  ::waitpid(s.pid, &st, 0);
  std::remove(s.err_file.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

std::string run_args(const std::string& report, const std::string& extra = "") {
  return "run --config " + src("configs/default.yaml") + " --workload " + src("examples/gemm.pasm") +
         " --set cpu.model=rv32 " + extra + " --report " + report + " --quiet";
}

TEST(Gdb, BatchSessionBreaksStepsAndContinuesToTheEnd) {
  const std::string report = temp_path("gdb_report.json"), plain = temp_path("gdb_plain.json");
  ASSERT_EQ(photon_test::photon(run_args(plain)).status, 0);
  Served s = start_photon(run_args(report));
  ASSERT_GT(s.port, 0) << slurp(s.err_file);
  const std::string script = temp_path("gdb_script.gdb");
  photon_test::write_text(script,
                          "set pagination off\n"
                          "target remote :" +
                              std::to_string(s.port) +
                              "\n"
                              "printf \"start pc=%#x\\n\", $pc\n"
                              "break push\n"
                              "continue\n"
                              "printf \"gp=%#x symbol=%#x\\n\", $gp, &__global_pointer$\n"
                              "set $before = $pc\n"
                              "stepi\n"
                              "printf \"stepped=%d\\n\", $pc - $before\n"
                              "delete\n"
                              "continue\n");
  const std::string out_file = temp_path("gdb_out.txt");
  const std::string elf = build_dir() + "/firmware/photon_firmware.elf";
  const int rc = std::system(
      ("timeout 120 gdb-multiarch -nx -batch -x " + script + " " + elf + " >" + out_file + " 2>&1").c_str());
  const std::string out = slurp(out_file);
  EXPECT_EQ(WEXITSTATUS(rc), 0) << out;
  EXPECT_EQ(finish(s), 0) << out;
  // Stopped before the first instruction: the ELF entry (crt0.S _start at the ROM base).
  EXPECT_NE(out.find("start pc=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("Breakpoint 1, push ("), std::string::npos) << out;
  // gp read over the protocol equals the ELF's __global_pointer$ (crt0.S sets it).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("gp=(0x[0-9a-f]+) symbol=(0x[0-9a-f]+)"))) << out;
  EXPECT_EQ(m[1], m[2]);
  ASSERT_TRUE(std::regex_search(out, m, std::regex("stepped=([0-9-]+)"))) << out;
  EXPECT_TRUE(m[1] == "2" || m[1] == "4") << out;  // one compressed or one full instruction
  EXPECT_NE(out.find("exited normally"), std::string::npos) << out;
  // A debugger pauses simulated time: the run is the run without it.
  const auto a = nlohmann::json::parse(slurp(report)), b = nlohmann::json::parse(slurp(plain));
  EXPECT_EQ(a["status"], "ok");
  EXPECT_EQ(a["simulated_time_ns"], b["simulated_time_ns"]);
  EXPECT_EQ(a["firmware"]["instructions"], b["firmware"]["instructions"]);
}

/// A minimal remote-protocol client.
class Rsp {
 public:
  explicit Rsp(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Rsp() { ::close(fd_); }
  bool ok() const { return ok_; }
  void send(const std::string& body) {
    unsigned sum = 0;
    for (char c : body) sum += uint8_t(c);
    char tail[4];
    std::snprintf(tail, sizeof tail, "#%02x", sum & 0xFF);
    const std::string p = "$" + body + tail;
    ::send(fd_, p.data(), p.size(), 0);
  }
  void raw(char c) { ::send(fd_, &c, 1, 0); }
  /// The next packet's body (acks skipped; each packet acknowledged).
  std::string recv() {
    std::string buf;
    char c;
    while (::recv(fd_, &c, 1, 0) == 1 && c != '$') {}
    while (::recv(fd_, &c, 1, 0) == 1 && c != '#') buf += c;
    char sum[2];
    ::recv(fd_, sum, 2, MSG_WAITALL);
    raw('+');
    return buf;
  }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

TEST(Gdb, CtrlCStopsARunningFirmwareAndKillEndsTheRun) {
  const std::string report = temp_path("gdb_ctrlc.json");
  const std::string elf = build_dir() + "/test-firmware/fw_spin.elf";
  Served s = start_photon(run_args(report, "--set cpu.firmware=" + elf));
  ASSERT_GT(s.port, 0);
  {
    Rsp gdb(s.port);
    ASSERT_TRUE(gdb.ok());
    gdb.send("?");
    EXPECT_EQ(gdb.recv(), "S05");  // stopped at attach
    gdb.send("c");
    gdb.raw(0x03);  // the firmware spins forever: it is running when this arrives
    EXPECT_EQ(gdb.recv(), "S02");
    gdb.send("p20");  // pc (regnum 32), little-endian hex
    const std::string pc_hex = gdb.recv();
    ASSERT_EQ(pc_hex.size(), 8u);
    uint32_t pc = 0;
    for (int i = 3; i >= 0; --i) pc = (pc << 8) | uint32_t(std::stoul(pc_hex.substr(2 * i, 2), nullptr, 16));
    // Inside spin_forever (nm's symbol table as the oracle).
    FILE* p = ::popen(("riscv64-unknown-elf-nm -S " + elf + " | grep ' spin_forever$'").c_str(), "r");
    unsigned addr = 0, size = 0;
    ASSERT_EQ(std::fscanf(p, "%x %x", &addr, &size), 2);
    ::pclose(p);
    EXPECT_GE(pc, addr);
    EXPECT_LT(pc, addr + size);
    gdb.send("k");
  }
  EXPECT_EQ(finish(s), 1);
  const auto rep = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(rep["status"], "firmware_fault");
  EXPECT_NE(rep["error"].get<std::string>().find("ended by the debugger"), std::string::npos);
}

}  // namespace
