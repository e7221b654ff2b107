// GdbServer: GDB's remote serial protocol (RSP) over TCP for one RV32 hart. Pure C++ (POSIX
// sockets), no SystemC: the CPU shell calls it when the hart stops.
//
// Protocol: GDB manual, appendix "Remote Serial Protocol" (packets $data#checksum, '+'/'-'
// acknowledgements, QStartNoAckMode, Ctrl-C as a 0x03 byte while the target runs). Served:
//   ?            last stop signal           g / G      read / write x0..x31, pc
//   p n / P n=v  one register (33.. are the CSRs of the target description)
//   m a,l / M a,l:hex  memory              Z0/Z1 / z0/z1  breakpoints (kept by the core)
//   c / s        continue / single step    D / k      detach / kill (the run goes on / ends)
//   qSupported, qXfer:features:read:target.xml (riscv:rv32, org.gnu.gdb.riscv.cpu and .csr),
//   qAttached, qC, qfThreadInfo/qsThreadInfo, Hg/Hc, vMustReplyEmpty; anything else: "".
// Stop replies: S05 (breakpoint, step), S02 (Ctrl-C), S04 / S0b / S07 (illegal instruction,
// access fault, misaligned access caught before the trap is taken); W<code> when the firmware
// exits, X<signal> when it ends on a fault.
// Errors (photon::Error): the port cannot be bound or listened on.
#pragma once

#include <cstdint>
#include <string>

namespace photon::rv32 {

/// What the server reads and changes. Register numbers: 0..31 x0..x31, 32 pc, 33.. CSRs.
class GdbTarget {
 public:
  virtual ~GdbTarget() = default;
  virtual bool read_reg(unsigned regno, uint32_t& value) = 0;
  virtual bool write_reg(unsigned regno, uint32_t value) = 0;
  virtual bool read_mem(uint32_t addr, uint8_t* dst, unsigned bytes) = 0;
  virtual bool write_mem(uint32_t addr, const uint8_t* src, unsigned bytes) = 0;
  virtual void insert_breakpoint(uint32_t addr) = 0;
  virtual void remove_breakpoint(uint32_t addr) = 0;
};

class GdbServer {
 public:
  /// How GDB lets the target go on.
  enum class Resume { Continue, Step, Detach, Kill };

  /// Listens on 127.0.0.1:`port` (0: a free port chosen by the system).
  explicit GdbServer(int port);
  ~GdbServer();
  GdbServer(const GdbServer&) = delete;
  GdbServer& operator=(const GdbServer&) = delete;

  int port() const { return port_; }
  /// Blocks until GDB connects.
  void accept_connection();
  bool connected() const { return conn_ >= 0; }

  /// The target stopped with `signal` (5 SIGTRAP, 2 SIGINT, ...): sends the stop reply unless
  /// this is the stop at attach (GDB asks with '?'), then serves packets until GDB resumes.
  Resume serve_stop(GdbTarget& target, int signal, bool at_attach = false);
  /// Non-blocking, while the target runs: true if GDB sent Ctrl-C.
  bool interrupted();
  /// The firmware exited with `code` (W packet) or ended on a fault (X packet); closes.
  void exited(int code);
  void terminated(int signal);

 private:
  bool read_packet(std::string& out);  ///< false: connection closed
  void send_packet(const std::string& body);
  std::string handle(GdbTarget& t, const std::string& pkt, Resume& resume, bool& resumed);
  void close_connection();

  int listen_fd_ = -1, conn_ = -1, port_ = 0;
  bool no_ack_ = false, start_no_ack_ = false;
  int last_signal_ = 5;
  std::string rx_;  ///< bytes received but not yet consumed
};

}  // namespace photon::rv32
