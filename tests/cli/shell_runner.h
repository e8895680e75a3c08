// Runs the built `engram` binary through the shell for the end-to-end CLI tests that only need
// its stdout and exit code (cli_test.cc has a fuller runner that also separates stderr).
#ifndef ENGRAM_TESTS_CLI_SHELL_RUNNER_H_
#define ENGRAM_TESTS_CLI_SHELL_RUNNER_H_

#include <sys/wait.h>

#include <cstdio>
#include <string>

#ifndef ENGRAM_CLI_PATH
#error "ENGRAM_CLI_PATH must name the engram binary"
#endif

namespace engram::testing {

struct ShellOutput {
  int exit_code = -1;  // -1 when the command could not be run or did not exit normally
  std::string out;     // stdout, then stderr when asked
};

// Runs `command` through the shell and captures stdout, plus stderr when `with_stderr`;
// otherwise stderr goes to the test log.
inline ShellOutput RunShell(std::string command, bool with_stderr = false) {
  ShellOutput output;
  if (with_stderr) command += " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  std::size_t read = 0;
  while ((read = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.out.append(buffer, read);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) output.exit_code = WEXITSTATUS(status);
  return output;
}

// The built `engram` binary, quoted for the shell.
inline std::string CliCommand() { return std::string("'") + ENGRAM_CLI_PATH + "'"; }

// Runs `engram <args>` through the shell (the caller quotes arguments), as RunShell.
inline ShellOutput RunCli(const std::string& args, bool with_stderr = false) {
  return RunShell(CliCommand() + " " + args, with_stderr);
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_CLI_SHELL_RUNNER_H_
