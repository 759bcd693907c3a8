#!/bin/sh
# Installs the zipfs binary of a release, checked against the release's SHA256SUMS
# before anything is unpacked: for CI jobs (the GitHub Action in
# .github/actions/setup-zipfs runs it) and anyone installing by hand.
#
#   ZIPFS_VERSION      the release to install (default: this script's own, below)
#   ZIPFS_RELEASE_URL  where the release's files are (default: its GitHub release);
#                      an https:// or file:// URL, or a folder (tests use dist/release)
#   ZIPFS_INSTALL_DIR  where zipfs goes (default: ./zipfs-bin)
#
# Prints the installed binary's path on stdout; says what failed on stderr and exits 1.
# Linux and macOS, x64 and arm64 (Windows: take the .zip from the release).
set -eu

version="${ZIPFS_VERSION:-0.1.0}"
release_url="${ZIPFS_RELEASE_URL:-https://github.com/zipfs/zipfs/releases/download/v$version}"
install_dir="${ZIPFS_INSTALL_DIR:-zipfs-bin}"

fail() {
  echo "install-release.sh: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no zipfs release archive for $(uname -s); on Windows take zipfs-$version-windows-x64.zip from $release_url" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) fail "no zipfs release archive for the $(uname -m) processor" ;;
esac
base="zipfs-$version-$os-$cpu"
archive="$base.tar.gz"

# One file of the release into the current folder, from a URL or a folder.
fetch() {
  case "$release_url" in
    https://* | http://*)
      if command -v curl >/dev/null 2>&1; then
        curl -fsSL --retry 3 -o "$1" "$release_url/$1" || fail "could not download $release_url/$1"
      elif command -v wget >/dev/null 2>&1; then
        wget -q -O "$1" "$release_url/$1" || fail "could not download $release_url/$1"
      else
        fail "neither curl nor wget is installed; install one, or set ZIPFS_RELEASE_URL to a folder holding the release"
      fi
      ;;
    file://*) cp "${release_url#file://}/$1" "$1" 2>/dev/null || fail "no $1 in ${release_url#file://}" ;;
    *) cp "$release_url/$1" "$1" 2>/dev/null || fail "no $1 in $release_url" ;;
  esac
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "neither sha256sum nor shasum is installed, so the archive cannot be verified"
  fi
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$install_dir" || fail "cannot make $install_dir"
install_dir="$(cd "$install_dir" && pwd)"
cd "$work"
fetch SHA256SUMS
fetch "$archive"
expected="$(awk -v name="$archive" '$2 == name { print $1 }' SHA256SUMS)"
[ -n "$expected" ] || fail "SHA256SUMS of $release_url does not list $archive"
actual="$(sha256 "$archive")"
[ "$actual" = "$expected" ] || fail "$archive does not match its checksum (SHA-256 $actual, SHA256SUMS says $expected): not installed. Download it again; if it still differs, do not use it."
tar -xzf "$archive" || fail "cannot unpack $archive"
[ -f "$base/zipfs" ] || fail "$archive holds no $base/zipfs"
# A temporary beside the target, then a rename: a zipfs running from install_dir is never half-replaced.
cp "$base/zipfs" "$install_dir/.zipfs.tmp"
chmod 755 "$install_dir/.zipfs.tmp"
mv -f "$install_dir/.zipfs.tmp" "$install_dir/zipfs"
installed="$("$install_dir/zipfs" --version)" || fail "the installed $install_dir/zipfs does not run on this machine"
[ "$installed" = "$version" ] || fail "$archive holds zipfs $installed, not $version"
echo "$install_dir/zipfs"
