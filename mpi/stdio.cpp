// The ranks' standard output and error (mpi/output.hpp): the __wrap_ functions that vmcc's
// link options (-Wl,--wrap=printf, ...) send a program's C stdio writes to, each rank's line
// buffers, and the stream buffers std::cout, std::cerr and std::clog write through during a
// job.
//
// A call from a rank to stdout or stderr formats its text, appends it to the rank's buffer for
// that stream and writes every line the text completes, prefixed when tagged, in one fwrite to
// libc's stream (glibc locks a FILE for each call, so one call's bytes stay together). A rank's
// last partial line is written when the host flushes it (flush_rank_output: at the rank's end).
// A line longer than kLongestLine is written in pieces, each ended as a line. A call to any
// other FILE, or from a thread that is not a rank, is libc's own call (libvmc_mpi itself is
// not linked with --wrap, so the calls below reach libc). errno is left as the wrapped call
// would leave it on success.
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpi/output.hpp"
#include "runtime/machine.hpp"

namespace vmc::mpi {
namespace {

enum Channel : int { kOut = 0, kErr = 1 };

// A rank's text since its last newline, per channel; and, when the job orders its output in
// virtual time (begin_output), its whole lines that the pass has not handed on yet, each with
// its channel, in the order the rank wrote them (guarded by g_marked_mutex).
struct RankLines {
  std::string pending[2];
  std::deque<std::pair<Channel, std::string>> marked;
};

// Set by begin_output before the run and read by the ranks during it.
OutputMode g_mode = OutputMode::lines;
bool g_ordered = false;
std::vector<RankLines> g_lines;
std::mutex g_marked_mutex;

constexpr std::size_t kLongestLine = 64 * 1024;

// The calling rank, or -1 outside every rank of the job.
int calling_rank() {
  const Node* n = this_node();
  if (n == nullptr) return -1;
  const int r = n->rank();
  return r < static_cast<int>(g_lines.size()) ? r : -1;
}

std::FILE* stream_of(Channel c) { return c == kOut ? stdout : stderr; }

// Writes lines out of libc's buffer at once: every rank is in vmc's process, so a rank that
// crashes takes the process with it, and what stdout held (a file or a pipe is fully
// buffered) would be lost with it, the ranks' last lines before the crash among them.
void write_out(const char* data, std::size_t size, Channel c) {
  std::fwrite(data, 1, size, stream_of(c));
  std::fflush(stream_of(c));
}

// Whole lines of rank r to channel c as they are written: prefixed when tagged.
std::string as_written(int r, Channel c, std::string_view lines) {
  if (g_mode != OutputMode::tagged) return std::string(lines);
  const std::string prefix =
      "[1," + std::to_string(r) + (c == kOut ? "]<stdout>:" : "]<stderr>:");
  std::string out;
  out.reserve(lines.size() + 4 * prefix.size());
  for (std::size_t at = 0; at < lines.size();) {
    const std::size_t end = lines.find('\n', at);
    out += prefix;
    out.append(lines.substr(at, end + 1 - at));
    at = end + 1;
  }
  return out;
}

// Writes whole lines (each ending in '\n') of rank r to channel c in one call: at once, or,
// when the job orders its output, once the run's pass reaches this point of the rank in
// virtual time (write_marked_output).
void emit(int r, Channel c, std::string_view lines) {
  if (g_mode == OutputMode::discard || lines.empty()) return;
  if (g_ordered) {
    {
      std::lock_guard lock(g_marked_mutex);
      g_lines[r].marked.emplace_back(c, as_written(r, c, lines));
    }
    // Marked after the lines are queued (the pass takes them when it meets the mark), and
    // outside the lock (the pass holds its own while it takes them).
    if (mark_output()) return;
    std::string text;
    {
      std::lock_guard lock(g_marked_mutex);
      text = std::move(g_lines[r].marked.back().second);
      g_lines[r].marked.pop_back();
    }
    write_out(text.data(), text.size(), c);
    return;
  }
  if (g_mode == OutputMode::lines) {
    write_out(lines.data(), lines.size(), c);
    return;
  }
  const std::string out = as_written(r, c, lines);
  write_out(out.data(), out.size(), c);
}

// Writes every line of rank r that waits for the pass, in order (under g_marked_mutex).
void write_marked_locked(int r) {
  for (auto& [c, text] : g_lines[r].marked) write_out(text.data(), text.size(), c);
  g_lines[r].marked.clear();
}

// Appends text to rank r's channel c and writes the lines it completes.
void append(int r, Channel c, std::string_view text) {
  std::string& pending = g_lines[r].pending[c];
  const std::size_t last = text.rfind('\n');
  if (last == std::string_view::npos) {
    pending.append(text);
  } else if (pending.empty()) {
    emit(r, c, text.substr(0, last + 1));
    pending.assign(text.substr(last + 1));
  } else {
    pending.append(text.substr(0, last + 1));
    emit(r, c, pending);
    pending.assign(text.substr(last + 1));
  }
  if (pending.size() > kLongestLine) {
    pending += '\n';
    emit(r, c, pending);
    pending.clear();
  }
}

// The channel of a FILE, or -1 for any other.
int channel_of(std::FILE* f) { return f == stdout ? kOut : f == stderr ? kErr : -1; }

// Formats into rank r's channel c; returns what vfprintf would (the characters, or < 0).
int format_to(int r, Channel c, const char* format, va_list args) {
  char small[512];
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(small, sizeof small, format, args);
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof small) {
    append(r, c, std::string_view(small, static_cast<std::size_t>(n)));
  } else if (n >= 0) {
    std::string big(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(big.data(), big.size(), format, again);
    big.pop_back();
    append(r, c, big);
  }
  va_end(again);
  return n;
}

// vfprintf to f from the calling thread: a rank's stdout or stderr, or libc's.
int vprint(std::FILE* f, const char* format, va_list args) {
  const int r = calling_rank();
  const int c = channel_of(f);
  if (r < 0 || c < 0) return std::vfprintf(f, format, args);
  return format_to(r, static_cast<Channel>(c), format, args);
}

// Writes n bytes to f from the calling thread; true when they went to a rank's buffer.
bool write_to_rank(std::FILE* f, const char* data, std::size_t n) {
  const int r = calling_rank();
  const int c = channel_of(f);
  if (r < 0 || c < 0) return false;
  append(r, static_cast<Channel>(c), std::string_view(data, n));
  return true;
}

int put_char(int ch, std::FILE* f) {
  const char byte = static_cast<char>(ch);
  if (!write_to_rank(f, &byte, 1)) return std::fputc(ch, f);
  return static_cast<unsigned char>(byte);
}

int put_string(const char* s, std::FILE* f) {
  if (!write_to_rank(f, s, std::strlen(s))) return std::fputs(s, f);
  return 1;
}

std::size_t put_bytes(const void* data, std::size_t size, std::size_t count, std::FILE* f) {
  if (size == 0 || count == 0) return 0;
  if (!write_to_rank(f, static_cast<const char*>(data), size * count)) {
    return std::fwrite(data, size, count, f);
  }
  return count;
}

// std::cout, std::cerr and std::clog during a job: the calling rank's buffer, or the stream's
// own buffer outside the ranks. Unbuffered (every write reaches xsputn or overflow at once),
// so that it holds nothing that two ranks could share.
class RankStreambuf : public std::streambuf {
 public:
  explicit RankStreambuf(Channel c) : channel_(c) {}
  std::streambuf* own = nullptr;  // the stream's buffer before the job

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const int r = calling_rank();
    if (r < 0) return own != nullptr ? own->sputn(s, n) : 0;
    append(r, channel_, std::string_view(s, static_cast<std::size_t>(n)));
    return n;
  }
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    const char c = traits_type::to_char_type(ch);
    return xsputn(&c, 1) == 1 ? ch : traits_type::eof();
  }
  int sync() override {
    if (calling_rank() >= 0) return 0;  // a rank's lines go out as they complete
    return own != nullptr ? own->pubsync() : 0;
  }

 private:
  Channel channel_;
};

RankStreambuf g_cout_buf(kOut), g_cerr_buf(kErr), g_clog_buf(kErr);
bool g_streams_redirected = false;

}  // namespace

void begin_output(int ranks, OutputMode mode, bool ordered) {
  g_mode = mode;
  g_ordered = ordered && mode != OutputMode::discard;
  g_lines.assign(static_cast<std::size_t>(ranks), RankLines{});
  if (!g_streams_redirected) {
    std::cout.flush();
    g_cout_buf.own = std::cout.rdbuf(&g_cout_buf);
    g_cerr_buf.own = std::cerr.rdbuf(&g_cerr_buf);
    g_clog_buf.own = std::clog.rdbuf(&g_clog_buf);
    g_streams_redirected = true;
  }
}

void flush_rank_output(int rank) {
  if (rank < 0 || rank >= static_cast<int>(g_lines.size())) return;
  for (int c : {kOut, kErr}) {
    std::string& pending = g_lines[rank].pending[c];
    if (pending.empty()) continue;
    pending += '\n';
    emit(rank, static_cast<Channel>(c), pending);
    pending.clear();
  }
}

void write_marked_output(int rank, std::size_t pieces) {
  std::lock_guard lock(g_marked_mutex);
  if (rank < 0 || rank >= static_cast<int>(g_lines.size())) return;
  auto& marked = g_lines[rank].marked;
  for (; pieces > 0 && !marked.empty(); --pieces) {
    const auto& [c, text] = marked.front();
    write_out(text.data(), text.size(), c);
    marked.pop_front();
  }
}

void write_unhanded_output() {
  // A crash may come while a thread holds the lock: then nothing (the lock is never taken).
  // write(2), not stdio: another thread may hold libc's lock of stdout (every line written
  // through it is flushed at once, so its buffer holds nothing of the ranks').
  std::unique_lock lock(g_marked_mutex, std::try_to_lock);
  if (!lock.owns_lock()) return;
  for (RankLines& lines : g_lines) {
    for (const auto& [c, text] : lines.marked) {
      for (std::size_t at = 0; at < text.size();) {
        const ssize_t n = ::write(c == kOut ? 1 : 2, text.data() + at, text.size() - at);
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
      }
    }
    lines.marked.clear();
  }
}

void end_output() {
  {
    std::lock_guard lock(g_marked_mutex);
    for (int r = 0; r < static_cast<int>(g_lines.size()); ++r) write_marked_locked(r);
  }
  // Outside the ranks now: a rank's last partial line is written at once.
  for (int r = 0; r < static_cast<int>(g_lines.size()); ++r) flush_rank_output(r);
  g_ordered = false;
  g_lines.clear();
  if (g_streams_redirected) {
    std::cout.rdbuf(g_cout_buf.own);
    std::cerr.rdbuf(g_cerr_buf.own);
    std::clog.rdbuf(g_clog_buf.own);
    g_streams_redirected = false;
  }
  std::fflush(stdout);
  std::fflush(stderr);
}

}  // namespace vmc::mpi

using vmc::mpi::put_bytes;
using vmc::mpi::put_char;
using vmc::mpi::put_string;
using vmc::mpi::vprint;

// What a program's calls become (vmcc: -Wl,--wrap=NAME makes its calls of NAME calls of
// __wrap_NAME). The list is VMC_MPI_WRAPPED_CALLS in cmake/vmc_mpi_program.cmake.
extern "C" {

int __wrap_vfprintf(std::FILE* f, const char* format, va_list args) {
  return vprint(f, format, args);
}

int __wrap_vprintf(const char* format, va_list args) { return vprint(stdout, format, args); }

int __wrap_fprintf(std::FILE* f, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vprint(f, format, args);
  va_end(args);
  return n;
}

int __wrap_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vprint(stdout, format, args);
  va_end(args);
  return n;
}

// _FORTIFY_SOURCE's forms: the flag asks for checks of the format that the formatting here
// does not make (%n in writable memory is allowed).
int __wrap___vfprintf_chk(std::FILE* f, int, const char* format, va_list args) {
  return vprint(f, format, args);
}

int __wrap___vprintf_chk(int, const char* format, va_list args) {
  return vprint(stdout, format, args);
}

int __wrap___fprintf_chk(std::FILE* f, int, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vprint(f, format, args);
  va_end(args);
  return n;
}

int __wrap___printf_chk(int, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vprint(stdout, format, args);
  va_end(args);
  return n;
}

int __wrap_puts(const char* s) {
  if (put_string(s, stdout) < 0) return EOF;
  return put_char('\n', stdout) == EOF ? EOF : 1;
}

int __wrap_fputs(const char* s, std::FILE* f) { return put_string(s, f); }
int __wrap_fputs_unlocked(const char* s, std::FILE* f) { return put_string(s, f); }
int __wrap_fputc(int c, std::FILE* f) { return put_char(c, f); }
int __wrap_fputc_unlocked(int c, std::FILE* f) { return put_char(c, f); }
int __wrap_putc(int c, std::FILE* f) { return put_char(c, f); }
int __wrap_putc_unlocked(int c, std::FILE* f) { return put_char(c, f); }
int __wrap_putchar(int c) { return put_char(c, stdout); }
int __wrap_putchar_unlocked(int c) { return put_char(c, stdout); }

std::size_t __wrap_fwrite(const void* data, std::size_t size, std::size_t count, std::FILE* f) {
  return put_bytes(data, size, count, f);
}

std::size_t __wrap_fwrite_unlocked(const void* data, std::size_t size, std::size_t count,
                                   std::FILE* f) {
  return put_bytes(data, size, count, f);
}

// "s: <the text of errno>\n" on the rank's stderr, as perror writes it.
void __wrap_perror(const char* s) {
  const int e = errno;
  char buf[256];
  const char* text = strerror_r(e, buf, sizeof buf);  // GNU: returns the text
  std::string line = s != nullptr && *s != '\0' ? std::string(s) + ": " : std::string();
  line += text;
  line += '\n';
  put_string(line.c_str(), stderr);
  errno = e;
}

}  // extern "C"
