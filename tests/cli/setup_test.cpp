// setup.sh without root: run as a non-root user (nobody, through setpriv when the tests run as
// root) with a PATH that has no sudo and a dpkg-query that reports every package missing, it must
// name the missing packages and the one command that installs them, and exit non-zero before it
// configures or builds anything.
#include <sys/stat.h>

#include "helpers.hpp"

using namespace tfx::test;

namespace {

// The directory of `tool` on the usual PATH, or "" when absent.
std::string which(const std::string& tool) {
  for (const char* dir : {"/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"}) {
    const std::filesystem::path p = std::filesystem::path(dir) / tool;
    if (access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

}  // namespace

TEST_CASE("setup.sh as a non-root user without sudo names the missing packages and the command to install them") {
  const bool root = geteuid() == 0;
  const std::string setpriv = which("setpriv");
  if (root && setpriv.empty()) {
    std::cout << "TFX-SKIP: running as root and setpriv is absent, so setup.sh cannot be run as a non-root user\n";
    return;
  }
  TempDir dir;
  // a bin directory holding only what setup.sh needs before it installs: no sudo, no apt-get
  const std::filesystem::path bin = dir / "bin";
  std::filesystem::create_directory(bin);
  for (const char* tool : {"env", "bash", "dirname", "grep", "id"}) {
    const std::string target = which(tool);
    REQUIRE_MESSAGE(!target.empty(), tool);
    std::filesystem::create_symlink(target, bin / tool);
  }
  write_file(bin / "dpkg-query", "#!/bin/sh\nexit 1\n");  // every package: not installed
  std::filesystem::permissions(bin / "dpkg-query", std::filesystem::perms::all & ~std::filesystem::perms::group_write &
                                                       ~std::filesystem::perms::others_write);
  chmod(dir.path.c_str(), 0755);
  chmod(bin.c_str(), 0755);

  const std::string setup = std::string(TFX_SOURCE_DIR) + "/setup.sh";
  std::string cmd = root ? shell_quote(setpriv) + " --reuid=65534 --regid=65534 --clear-groups " : "";
  cmd += "/usr/bin/env -i PATH=" + shell_quote(bin.string()) + " HOME=/nonexistent " + shell_quote(setup) +
         " build </dev/null >" + shell_quote((dir / "out").string()) + " 2>" + shell_quote((dir / "err").string());
  const int status = std::system(cmd.c_str());
  const std::string out = read_file(dir / "out"), err = read_file(dir / "err");
  CAPTURE(out);
  CAPTURE(err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK_FALSE(has(err, "command not found"));
  CHECK(has(err, "setup: missing Debian packages: g++ make cmake"));
  CHECK(has(err, "sudo is not available"));
  // the one command, with every missing package on it
  CHECK(has(err, "  apt-get update && apt-get install -y --no-install-recommends g++ make cmake libcli11-dev"));
  CHECK(has(err, "then run"));
  CHECK(out.empty());
}
