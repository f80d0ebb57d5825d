# Sourced by quickstart.sh and test.sh: makes sure the Debian packages fasim
# builds with are installed. As root it installs what is missing with apt-get;
# otherwise it prints the one apt-get line to run and exits 2.
# fasim_ensure_extras does the same for what the docs and the browser test
# need (test.sh), but never stops: without them those two say what is missing.
FASIM_PACKAGES=(g++ cmake ninja-build libeigen3-dev catch2 libcli11-dev
  libtomlplusplus-dev nlohmann-json3-dev libbenchmark-dev tmux)
# The docs (Doxygen site) and the browser test of the trace viewer (headless
# Chromium, driven by playwright-core from npm, which needs node and npm).
FASIM_EXTRA_PACKAGES=(doxygen graphviz doxygen-awesome-css libjs-mathjax chromium)
# The fuzzers (scripts/fuzz.sh, not CI: CI replays their corpus with g++):
# clang and its libFuzzer runtime.
FASIM_FUZZ_PACKAGES=(clang libclang-rt-14-dev)

fasim_missing_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]}"
}

fasim_ensure_deps() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "fasim: not a Debian system; make sure these are installed: ${FASIM_PACKAGES[*]}" >&2
    return 0
  fi
  local missing
  missing=$(fasim_missing_packages "${FASIM_PACKAGES[@]}")
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "fasim: installing missing Debian packages: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing || {
      echo "fasim: apt-get could not install: $missing; check the package sources and try again" >&2
      exit 2
    }
  else
    echo "fasim: missing Debian packages; install them with:" >&2
    echo "  sudo apt-get install -y $missing" >&2
    exit 2
  fi
}

fasim_ensure_extras() {
  command -v dpkg-query >/dev/null 2>&1 || return 0
  local missing
  missing=$(fasim_missing_packages "${FASIM_EXTRA_PACKAGES[@]}")
  # node and npm may come from elsewhere than Debian (e.g. NodeSource's nodejs has npm inside).
  command -v node >/dev/null 2>&1 || missing="$missing nodejs"
  command -v npm >/dev/null 2>&1 || missing="$missing npm"
  missing=$(echo $missing)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then
    echo "fasim: installing Debian packages for the docs and the browser test: $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing ||
      echo "fasim: apt-get could not install: $missing; the docs or the browser test will say what is missing" >&2
  else
    echo "fasim: for the docs and the browser test, install: sudo apt-get install -y $missing" >&2
  fi
}
