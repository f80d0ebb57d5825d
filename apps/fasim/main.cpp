// fasim: watch attention move bytes through a GPU.
// Bad input -> one line on stderr and exit code 2; Ctrl-C -> no partial files.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>

#include "commands.hpp"
#include "fasim/atomic_file.hpp"
#include "fasim/error.hpp"
#include "help_format.hpp"
#include "parse_error.hpp"

namespace {

// Everything a command printed must reach stdout: a full disk or a closed
// file shows only when the buffer is flushed, so flush it here and say so
// (one line, exit 2) instead of exiting 0 with the output lost.
int flushed(int rc) {
  errno = 0;  // a failed flush says why here; a flush that failed earlier, mid-run, may not
  std::cout.flush();
  const bool flush_failed = std::fflush(stdout) != 0;
  int err = errno;
  if (err == 0 && (std::ferror(stdout) || !std::cout) && ::write(STDOUT_FILENO, "", 0) < 0)
    err = errno;  // it failed mid-run and errno has moved on: an empty write asks again, writing nothing
  if ((flush_failed || std::ferror(stdout) || !std::cout) && rc != 2) {  // 2: its error line is out already
    std::cerr << "fasim: error: cannot write to standard output: "
              << (err != 0 ? std::strerror(err) : "a write failed")
              << "; check the disk or file it is redirected to\n";
    return 2;
  }
  return rc;
}

int run(int argc, char** argv);

}  // namespace

int main(int argc, char** argv) { return flushed(run(argc, argv)); }

namespace {

int run(int argc, char** argv) {
  fasim::AtomicFile::install_interrupt_cleanup();  // Ctrl-C leaves no partial file

  CLI::App app{"fasim: simulate how attention moves bytes through a GPU's memory hierarchy"};
  app.require_subcommand(1);
  app.formatter(std::make_shared<fasim::cli::HelpFormatter>());  // before the commands: they take it on
  app.footer("Run 'fasim COMMAND --help' for a command's flags.");
#if FASIM_HAVE_CUDA
  app.set_version_flag("--version", "fasim " FASIM_VERSION " (CUDA backend built in)");
#else
  app.set_version_flag("--version", "fasim " FASIM_VERSION " (CPU only: no CUDA backend)");
#endif
  // Each command registers its flags and hands back what runs it; the order
  // here is the order of `fasim --help` and of the unknown-command message.
  using Add = fasim::cli::Action (*)(CLI::App&);
  const std::pair<const char*, Add> commands[] = {
      {"run", fasim::cli::add_run},         {"step", fasim::cli::add_step},
      {"devices", fasim::cli::add_devices}, {"sweep", fasim::cli::add_sweep},
      {"plot", fasim::cli::add_plot},       {"gpu", fasim::cli::add_gpu},
      {"compare", fasim::cli::add_compare}, {"lesson", fasim::cli::add_lesson},
      {"trace", fasim::cli::add_trace},
  };
  std::map<std::string, fasim::cli::Action> actions;
  std::string names;
  for (const auto& [name, add] : commands) {
    actions[name] = add(app);
    names += (names.empty() ? "" : ", ") + std::string(name);
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (argc > 1 && app.get_subcommands().empty()) {  // no command recognised
      if (argv[1][0] == '-')
        std::cerr << "fasim: error: '" << fasim::one_line(argv[1])
                  << "' is not a flag of fasim itself; flags go after a command: fasim COMMAND [flags] (see 'fasim --help')\n";
      else
        std::cerr << "fasim: error: unknown command '" << fasim::one_line(argv[1])
                  << "'; use one of " << names << " (see 'fasim --help')\n";
      return 2;
    }
    CLI::App* at = &app;  // the command whose words were being read: fasim, fasim run, fasim gpu run
    std::string where = "fasim";
    while (!at->get_subcommands().empty()) {
      at = at->get_subcommands()[0];
      where += " " + at->get_name();
    }
    std::cerr << "fasim: error: " << fasim::cli::parse_error_line(e, *at, where) << "\n";
    return 2;
  }

  try {
    for (auto* sub : app.get_subcommands())
      if (auto it = actions.find(sub->get_name()); it != actions.end()) return it->second();
  } catch (const fasim::UserError& e) {
    std::cerr << "fasim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {  // a shape or input too large for this host: the user's to change
    std::cerr << "fasim: error: out of memory; try --no-numerics (counts without values) or a smaller shape\n";
    return 2;
  } catch (const std::exception& e) {  // not the user's input (e.g. a CUDA failure): exit 1
    std::cerr << "fasim: error: " << e.what() << "\n";
    return 1;
  }
  return 2;
}

}  // namespace
