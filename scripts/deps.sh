# Sourced by quickstart.sh and test.sh: makes sure the Debian packages fasim
# builds with are installed. As root it installs what is missing with apt-get;
# otherwise it prints the one apt-get line to run and exits 2.
FASIM_PACKAGES=(g++ cmake ninja-build libeigen3-dev catch2 libcli11-dev
  libtomlplusplus-dev nlohmann-json3-dev libbenchmark-dev tmux)

fasim_missing_packages() {
  local missing=() p
  for p in "${FASIM_PACKAGES[@]}"; do
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
  missing=$(fasim_missing_packages)
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
