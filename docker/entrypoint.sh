#!/bin/sh
# Kade's container entrypoint (POSIX sh). Starts as root, prepares the folders Kade writes to, then
# runs the command (node dist/server/main.js) as SVC_UID:SVC_GID with only the capabilities chown,
# dac_override and fowner, through setpriv (util-linux). SVC_UID=0 keeps root with every capability.
#
# Folders: SVC_DATA (default /data; Kade's own state, so every entry in it becomes Kade's) and
# BACKUP_DIR (Kade's archives, likewise); LIBRARY_DIR, DATA_DIR and BASE_DIR are created when
# missing and only the folder itself is given to Kade: apps' files and data below them keep their
# owners (a database's files belong to the database's user).
# The engine socket's group is read from the socket itself and added as a supplementary group, so
# the account need not be in the host's docker group.
set -eu

say() { printf 'kade-entrypoint: %s\n' "$*" >&2; }
die() {
  say "$*"
  exit 1
}

[ "$#" -gt 0 ] || die 'no command given'

if [ "$(id -u)" != 0 ]; then
  say "started as uid $(id -u), not root: folders are not prepared and privileges stay as they are"
  exec "$@"
fi

uid=${SVC_UID:-0}
gid=${SVC_GID:-$uid}
case "$uid" in '' | *[!0-9]*) die "SVC_UID '$uid' is not a number" ;; esac
case "$gid" in '' | *[!0-9]*) die "SVC_GID '$gid' is not a number" ;; esac

if [ "$uid" = 0 ]; then
  say 'SVC_UID=0: Kade runs as root'
  exec "$@"
fi

data=${SVC_DATA:-/data}
jobs=${SVC_JOBS:-$data/jobs}
base=${BASE_DIR:-}
library=${LIBRARY_DIR:-}
appdata=${DATA_DIR:-}
backups=${BACKUP_DIR:-}
if [ -n "$base" ]; then
  : "${library:=$base/stacks}" "${appdata:=$base/appdata}" "${backups:=$base/backups}"
fi

as_user() { setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; }

# own_tree DIR: DIR and everything in it that is not yet SVC_UID:SVC_GID's becomes so (Kade's own
# files only). DATA_DIR is never walked, even if it was put inside.
own_tree() {
  mkdir -p -- "$1"
  if [ -n "$appdata" ]; then
    find "$1" -path "$appdata" -prune -o \( ! -user "$uid" -o ! -group "$gid" \) -exec chown -h "$uid:$gid" {} +
  else
    find "$1" \( ! -user "$uid" -o ! -group "$gid" \) -exec chown -h "$uid:$gid" {} +
  fi
}

# own_dir DIR: DIR itself becomes SVC_UID:SVC_GID's; what is in it is left alone.
own_dir() {
  mkdir -p -- "$1"
  chown "$uid:$gid" -- "$1"
}

# writable_dir DIR: creates DIR for Kade when missing; an existing one is given to Kade only when
# Kade's account cannot write to it (a BASE_DIR the user prepared keeps its owner).
writable_dir() {
  if [ ! -d "$1" ]; then
    own_dir "$1"
  elif ! as_user test -w "$1" -a -x "$1"; then
    say "$1 is not writable for $uid:$gid; giving the folder (not its content) to $uid:$gid"
    chown "$uid:$gid" -- "$1"
  fi
}

if [ -n "$base" ]; then writable_dir "$base"; fi
own_tree "$data"
case "$jobs" in "$data" | "$data"/*) ;; *) own_tree "$jobs" ;; esac
if [ -n "$library" ]; then own_dir "$library"; fi
if [ -n "$appdata" ]; then writable_dir "$appdata"; fi
if [ -n "$backups" ]; then own_tree "$backups"; fi
# Kade's database and keys are for Kade's account only.
chmod 700 "$data"

groups=$gid
case "${DOCKER_HOST:-}" in
  unix://*) socket=${DOCKER_HOST#unix://} ;;
  '') socket=/var/run/docker.sock ;;
  *) socket='' ;;
esac
if [ -n "$socket" ] && [ -S "$socket" ]; then
  socket_gid=$(stat -c %g "$socket")
  if [ "$socket_gid" != "$gid" ]; then groups="$gid,$socket_gid"; fi
elif [ -n "$socket" ]; then
  say "no engine socket at $socket: Kade will report the engine as unreachable"
fi

say "running as $uid:$gid (groups $groups) with the capabilities chown, dac_override and fowner"
# Without an entry in /etc/passwd, HOME would stay /root; git and compose look there for their settings.
HOME=$data
export HOME
exec setpriv --reuid="$uid" --regid="$gid" --groups="$groups" \
  --inh-caps=-all,+chown,+dac_override,+fowner \
  --ambient-caps=-all,+chown,+dac_override,+fowner \
  --bounding-set=-all,+chown,+dac_override,+fowner \
  -- "$@"
