#!/bin/bash
# Install the Debian 12 packages that raidsim needs to build, test and run
# its demo.  Idempotent: when every package is already installed it does
# nothing, not even 'apt-get update'.
#
# Run (as root, or as a user with sudo): scripts/install-deps.sh
set -euo pipefail

packages=(
  # build
  build-essential pkg-config meson ninja-build
  nbdkit nbdkit-plugin-dev libnbd-dev check
  libinih-dev libjson-c-dev liburing-dev
  libblkid-dev       # raidsim create, the plugin's spares: signatures on a member
  perl               # pod2man for the man page; JSON::PP for scripts/test.sh
  # run, test and demo
  libnbd-bin         # nbdfuse, nbdcopy, nbdinfo
  fuse3              # fusermount3
  e2fsprogs          # mkfs.ext4, e2fsck, filefrag
  mount              # mount, umount, losetup
  util-linux         # fallocate, mountpoint, script
  coreutils diffutils findutils procps
  fio gnuplot-nox
  mdadm              # test-mdadm.sh: real mdadm --examine reads our members
  blktrace           # blkparse: test-sim-trace.sh checks our blktrace reader
  bc                 # test-recovery.sh's and bench/rebuild.sh's arithmetic
  valgrind           # test-leak.sh: a member's statistics are freed
)

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps.sh: run as root (or install sudo)" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
  case "$status" in
    ii*) ;;
    *) missing+=("$p") ;;
  esac
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
# env passes DEBIAN_FRONTEND through sudo, which would otherwise drop it.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
