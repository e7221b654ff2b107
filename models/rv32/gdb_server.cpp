#include "models/rv32/gdb_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/error.h"

namespace photon::rv32 {

namespace {

// Register names of GDB's own riscv target description (gdb/features/riscv/32bit-cpu.xml) and
// the CSRs offered after them (numbers as in rv32_core.cpp).
const char* const kGprNames[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "fp", "s1", "a0",
                                   "a1",   "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                                   "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
struct CsrName {
  const char* name;
  uint32_t number;
};
const CsrName kCsrs[] = {{"mstatus", 0x300},  {"misa", 0x301},   {"mie", 0x304},      {"mtvec", 0x305},
                         {"mscratch", 0x340}, {"mepc", 0x341},   {"mcause", 0x342},   {"mtval", 0x343},
                         {"mip", 0x344},      {"mcycle", 0xB00}, {"minstret", 0xB02}, {"mcycleh", 0xB80},
                         {"minstreth", 0xB82}};

std::string target_xml() {
  std::string x =
      "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target version=\"1.0\">"
      "<architecture>riscv:rv32</architecture><feature name=\"org.gnu.gdb.riscv.cpu\">";
  for (unsigned i = 0; i < 32; ++i)
    x += std::string("<reg name=\"") + kGprNames[i] + "\" bitsize=\"32\" type=\"" +
         (i == 1   ? "code_ptr"
          : i == 2 ? "data_ptr"
                   : "int") +
         "\" regnum=\"" + std::to_string(i) + "\"/>";
  x += "<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"32\"/></feature>"
       "<feature name=\"org.gnu.gdb.riscv.csr\">";
  unsigned n = 33;
  for (const auto& c : kCsrs)
    x += std::string("<reg name=\"") + c.name + "\" bitsize=\"32\" regnum=\"" + std::to_string(n++) +
         "\" group=\"csr\"/>";
  x += "</feature></target>";
  return x;
}

std::string hex32le(uint32_t v) {
  char b[9];
  std::snprintf(b, sizeof b, "%02x%02x%02x%02x", v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, v >> 24);
  return b;
}

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool parse_hex(const std::string& s, size_t& pos, uint64_t& v) {
  v = 0;
  size_t start = pos;
  while (pos < s.size() && hexval(s[pos]) >= 0) v = (v << 4) | uint64_t(hexval(s[pos++]));
  return pos > start;
}

uint32_t le32_from_hex(const std::string& s, size_t pos) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t(hexval(s[pos + 2 * i]) * 16 + hexval(s[pos + 2 * i + 1])) << (8 * i);
  return v;
}

}  // namespace

GdbServer::GdbServer(int port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listen_fd_ < 0) throw Error(std::string("--gdb: cannot create a socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listen_fd_, 1) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    throw Error("--gdb " + std::to_string(port) + ": cannot listen on that port: " + why);
  }
  socklen_t len = sizeof a;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
}

GdbServer::~GdbServer() {
  close_connection();
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void GdbServer::close_connection() {
  if (conn_ >= 0) ::close(conn_);
  conn_ = -1;
}

void GdbServer::accept_connection() {
  do { conn_ = ::accept(listen_fd_, nullptr, nullptr); } while (conn_ < 0 && errno == EINTR);
  if (conn_ < 0) throw Error(std::string("--gdb: accept failed: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(conn_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  no_ack_ = false;
  rx_.clear();
}

bool GdbServer::read_packet(std::string& out) {
  for (;;) {
    // A complete packet in the buffer?
    const size_t d = rx_.find('$');
    if (d != std::string::npos) {
      const size_t h = rx_.find('#', d);
      if (h != std::string::npos && h + 2 < rx_.size()) {
        out = rx_.substr(d + 1, h - d - 1);
        unsigned sum = 0;
        for (char c : out) sum += uint8_t(c);
        const int want = hexval(rx_[h + 1]) * 16 + hexval(rx_[h + 2]);
        rx_.erase(0, h + 3);
        if (!no_ack_) {
          const char ack = (int(sum & 0xFF) == want) ? '+' : '-';
          if (::send(conn_, &ack, 1, MSG_NOSIGNAL) != 1) return false;
          if (ack == '-') continue;
        }
        // Binary-escaped bytes ('}' then c ^ 0x20), as in X packets.
        std::string un;
        for (size_t i = 0; i < out.size(); ++i)
          un += (out[i] == '}' && i + 1 < out.size()) ? char(out[++i] ^ 0x20) : out[i];
        out = un;
        return true;
      }
    } else {
      rx_.erase(std::remove_if(rx_.begin(), rx_.end(), [](char c) { return c != '\x03'; }), rx_.end());
    }
    char buf[4096];
    ssize_t n;
    do { n = ::recv(conn_, buf, sizeof buf, 0); } while (n < 0 && errno == EINTR);
    if (n <= 0) return false;
    rx_.append(buf, size_t(n));
  }
}

void GdbServer::send_packet(const std::string& body) {
  unsigned sum = 0;
  for (char c : body) sum += uint8_t(c);
  char tail[4];
  std::snprintf(tail, sizeof tail, "#%02x", sum & 0xFF);
  const std::string pkt = "$" + body + tail;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (::send(conn_, pkt.data(), pkt.size(), MSG_NOSIGNAL) != ssize_t(pkt.size())) return;
    if (no_ack_) return;
    char c = 0;
    ssize_t n;
    do { n = ::recv(conn_, &c, 1, 0); } while (n < 0 && errno == EINTR);
    if (n <= 0 || c == '+') return;
  }
}

bool GdbServer::interrupted() {
  if (conn_ < 0) return false;
  // A Ctrl-C may have arrived together with the packet that resumed the target.
  if (const size_t i = rx_.find('\x03'); i != std::string::npos) {
    rx_.erase(i, 1);
    return true;
  }
  pollfd p{conn_, POLLIN, 0};
  while (::poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
    char c;
    if (::recv(conn_, &c, 1, 0) != 1) return false;
    if (c == 0x03) return true;
  }
  return false;
}

void GdbServer::exited(int code) {
  if (conn_ < 0) return;
  char b[8];
  std::snprintf(b, sizeof b, "W%02x", code & 0xFF);
  send_packet(b);
  close_connection();
}

void GdbServer::terminated(int signal) {
  if (conn_ < 0) return;
  char b[8];
  std::snprintf(b, sizeof b, "X%02x", signal & 0xFF);
  send_packet(b);
  close_connection();
}

GdbServer::Resume GdbServer::serve_stop(GdbTarget& t, int signal, bool at_attach) {
  last_signal_ = signal;
  if (conn_ < 0) return Resume::Detach;
  if (!at_attach) {
    char b[8];
    std::snprintf(b, sizeof b, "S%02x", signal & 0xFF);
    send_packet(b);
  }
  std::string pkt;
  while (read_packet(pkt)) {
    Resume r = Resume::Continue;
    bool resumed = false;
    const std::string reply = handle(t, pkt, r, resumed);
    if (resumed) {
      if (r == Resume::Detach) {
        send_packet("OK");
        close_connection();
      } else if (r == Resume::Kill) {
        close_connection();
      }
      return r;
    }
    send_packet(reply);
    if (start_no_ack_) no_ack_ = true, start_no_ack_ = false;
  }
  close_connection();  // GDB went away: the run goes on without it
  return Resume::Detach;
}

std::string GdbServer::handle(GdbTarget& t, const std::string& p, Resume& resume, bool& resumed) {
  if (p.empty()) return "";
  size_t pos = 1;
  uint64_t a = 0, l = 0;
  switch (p[0]) {
    case '?': {
      char b[8];
      std::snprintf(b, sizeof b, "S%02x", last_signal_ & 0xFF);
      return b;
    }
    case 'g': {
      std::string out;
      for (unsigned i = 0; i <= 32; ++i) {
        uint32_t v = 0;
        t.read_reg(i, v);
        out += hex32le(v);
      }
      return out;
    }
    case 'G':
      if (p.size() < 1 + 33 * 8) return "E01";
      for (unsigned i = 0; i <= 32; ++i) t.write_reg(i, le32_from_hex(p, 1 + 8 * i));
      return "OK";
    case 'p': {
      if (!parse_hex(p, pos, a)) return "E01";
      uint32_t v = 0;
      if (a > 32 && a - 33 < sizeof kCsrs / sizeof kCsrs[0]) {
        if (!t.read_reg(unsigned(0x1000 + kCsrs[a - 33].number), v)) return "E01";
      } else if (!t.read_reg(unsigned(a), v)) {
        return "E01";
      }
      return hex32le(v);
    }
    case 'P': {
      if (!parse_hex(p, pos, a) || pos >= p.size() || p[pos] != '=' || p.size() < pos + 9) return "E01";
      if (a > 32) return "E01";  // CSRs are read-only from the debugger
      return t.write_reg(unsigned(a), le32_from_hex(p, pos + 1)) ? "OK" : "E01";
    }
    case 'm': {
      if (!parse_hex(p, pos, a) || pos >= p.size() || p[pos++] != ',' || !parse_hex(p, pos, l)) return "E01";
      if (l > 0x4000) l = 0x4000;
      std::vector<uint8_t> buf(static_cast<size_t>(l));
      if (!t.read_mem(uint32_t(a), buf.data(), unsigned(l))) return "E14";
      std::string out;
      char h[3];
      for (uint8_t b : buf) {
        std::snprintf(h, sizeof h, "%02x", b);
        out += h;
      }
      return out;
    }
    case 'M': {
      if (!parse_hex(p, pos, a) || pos >= p.size() || p[pos++] != ',' || !parse_hex(p, pos, l) ||
          pos >= p.size() || p[pos++] != ':' || p.size() < pos + 2 * l)
        return "E01";
      std::vector<uint8_t> buf(static_cast<size_t>(l));
      for (size_t i = 0; i < l; ++i)
        buf[i] = uint8_t(hexval(p[pos + 2 * i]) * 16 + hexval(p[pos + 2 * i + 1]));
      return t.write_mem(uint32_t(a), buf.data(), unsigned(l)) ? "OK" : "E14";
    }
    case 'Z':
    case 'z': {
      if (p.size() < 4 || (p[1] != '0' && p[1] != '1') || p[2] != ',') return "";
      pos = 3;
      if (!parse_hex(p, pos, a)) return "E01";
      if (p[0] == 'Z')
        t.insert_breakpoint(uint32_t(a));
      else
        t.remove_breakpoint(uint32_t(a));
      return "OK";
    }
    case 'c':
      resume = Resume::Continue;
      resumed = true;
      if (parse_hex(p, pos, a)) t.write_reg(32, uint32_t(a));
      return "";
    case 's':
      resume = Resume::Step;
      resumed = true;
      if (parse_hex(p, pos, a)) t.write_reg(32, uint32_t(a));
      return "";
    case 'D':
      resume = Resume::Detach;
      resumed = true;
      return "OK";
    case 'k':
      resume = Resume::Kill;
      resumed = true;
      return "";
    case 'H': return "OK";
    case 'T': return "OK";
    case 'q':
      if (p.rfind("qSupported", 0) == 0) return "PacketSize=4000;qXfer:features:read+;QStartNoAckMode+";
      if (p.rfind("qXfer:features:read:target.xml:", 0) == 0) {
        pos = std::strlen("qXfer:features:read:target.xml:");
        if (!parse_hex(p, pos, a) || pos >= p.size() || p[pos++] != ',' || !parse_hex(p, pos, l))
          return "E01";
        const std::string x = target_xml();
        if (a >= x.size()) return "l";
        const std::string part = x.substr(size_t(a), size_t(l));
        return (a + part.size() >= x.size() ? "l" : "m") + part;
      }
      if (p == "qAttached") return "1";
      if (p == "qC") return "QC1";
      if (p == "qfThreadInfo") return "m1";
      if (p == "qsThreadInfo") return "l";
      if (p.rfind("qSymbol", 0) == 0) return "OK";
      return "";
    case 'Q':
      if (p == "QStartNoAckMode") {
        start_no_ack_ = true;  // after this reply has been acknowledged
        return "OK";
      }
      return "";
    default: return "";
  }
}

}  // namespace photon::rv32
