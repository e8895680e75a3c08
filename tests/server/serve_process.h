// `engram serve` as a child process for the end-to-end server tests: the built binary started on
// 127.0.0.1 with a port the kernel picks, its stderr in a log file, killed (SIGKILL) and reaped
// when the object goes away unless the test stopped it first.
//
//   ServeProcess serve(store, config, dir.File("serve.log"), {"--keys", keys});
//   ASSERT_NE(serve.port(), 0) << serve.log();
//   httplib::Client client("127.0.0.1", serve.port());
//   ...
//   EXPECT_TRUE(WIFEXITED(serve.SignalAndWait(SIGTERM)));
#ifndef ENGRAM_TESTS_SERVER_SERVE_PROCESS_H_
#define ENGRAM_TESTS_SERVER_SERVE_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#ifndef ENGRAM_CLI_PATH
#error "ENGRAM_CLI_PATH must name the engram binary"
#endif

namespace engram::testing {

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class ServeProcess {
 public:
  // Runs `engram --store <store> --config <config> serve --listen 127.0.0.1:0 <extra...>` and
  // waits (a bounded number of polls, up to 60 s) for its "serving ... on http://127.0.0.1:<port>"
  // line; port() stays 0 when the process exited or never said so.
  ServeProcess(const std::string& store, const std::string& config, std::string log_path,
               const std::vector<std::string>& extra = {})
      : log_(std::move(log_path)) {
    std::vector<std::string> args = {ENGRAM_CLI_PATH, "--store",  store,        "--config",
                                     config,          "serve",    "--listen",   "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(fd, 2);
      const int null = ::open("/dev/null", O_WRONLY);
      ::dup2(null, 1);
      std::vector<char*> argv;
      for (std::string& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    const std::regex serving("serving .* on http://127\\.0\\.0\\.1:([0-9]+)");
    for (int poll = 0; poll < 1200 && port_ == 0; ++poll) {
      std::smatch match;
      const std::string text = log();
      if (std::regex_search(text, match, serving)) {
        port_ = std::stoi(match[1]);
        break;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      ::usleep(50 * 1000);
    }
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }
  std::string log() const { return ReadWholeFile(log_); }
  // Sends `signal` and returns the exit status as waitpid reports it.
  int SignalAndWait(int signal) {
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_SERVER_SERVE_PROCESS_H_
