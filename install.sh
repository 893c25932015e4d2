#!/bin/sh
# Kade installer: sets Kade up on a Linux host with a container engine, updates, reconfigures or
# removes it. POSIX sh (dash, busybox sh); runs as `curl -fsSL <source>/raw/main/install.sh | sh`
# or `sh install.sh [options]`. Options and defaults: docs/install.md, or `sh install.sh --help`.
set -eu

# Where the source comes from; SVC_SOURCE_URL overrides it (tests, mirrors).
DEFAULT_SOURCE_URL='https://github.com/kade-app/kade.git'
DEFAULT_DIR='/opt/kade'
DEFAULT_BASE_DIR='/opt/kade-data'
DEFAULT_PORT='8420'
DEFAULT_BIND='127.0.0.1'
DEFAULT_BRANCH='main'
# Who the token belongs to is of no interest to git hosts; GitHub and Gitea want this name.
TOKEN_USER='x-access-token'

ACTION='install'
DIR=''
PORT=''
BIND=''
BRANCH=''
TOKEN=''
HOST=''
ACCOUNT=''
BASE_DIR_OPT=''
PURGE=0
YES=0
DRY_RUN=0
WORK=''
ROOT_CMD=''
DOCKER=''
COMPOSE=''
NL='
'

say() { printf '%s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<'EOF'
Usage: sh install.sh [action] [options]

Actions (default: a fresh install):
  --update          fetch the source again and restart; .env, apps and data stay
  --reconfigure     change bind address, port, account or base directory
  --uninstall       stop Kade and list what remains (--purge: remove the data too)
  --doctor          inspect the installation without changing anything
Options:
  --dir PATH        install directory (default /opt/kade)
  --port N          published port (default 8420)
  --bind ADDR       publish address (default 127.0.0.1; 0.0.0.0 for all; IPv6 as [::1])
  --branch NAME     source branch or tag (default main)
  --token TOKEN     access token for the source host
  --host HOST       alternative source host (an existing checkout's remote is switched at once)
  --user NAME       account Kade runs as: svc (new system account), root or an existing account
  --base-dir PATH   directory of the apps, their data and backups (default /opt/kade-data)
  --purge           with --uninstall: also remove the volume, the data directory and the account
  --yes             answer every question with yes (and take the default choice)
  --dry-run         show the steps without changing anything
Environment: SVC_IMAGE (pull this image instead of building), SVC_WACHT_POGINGEN (health-poll
attempts, default 90), SVC_SOURCE_URL, COMPOSE_PROJECT_NAME (default kade), SVC_BASE_IMAGE.
EOF
}

# ---------------------------------------------------------------------------------------------
# Options

need_value() {
  [ -n "${2-}" ] || die "$1 needs a value"
  case $2 in -*) die "$1 needs a value, got '$2'" ;; esac
}

set_action() {
  [ "$ACTION" = install ] || [ "$ACTION" = "$1" ] || die "choose one of --update, --reconfigure, --uninstall, --doctor"
  ACTION=$1
}

parse_args() {
  while [ "$#" -gt 0 ]; do
    opt=$1
    val=''
    has_inline=0
    case $opt in
      --*=*)
        val=${opt#*=}
        opt=${opt%%=*}
        has_inline=1
        ;;
    esac
    case $opt in
      --dir | --port | --bind | --branch | --token | --host | --user | --base-dir)
        if [ "$has_inline" = 0 ]; then
          need_value "$opt" "${2-}"
          val=$2
          shift
        fi
        [ -n "$val" ] || die "$opt needs a value"
        case $opt in
          --dir) DIR=$val ;;
          --port) PORT=$val ;;
          --bind) BIND=$val ;;
          --branch) BRANCH=$val ;;
          --token) TOKEN=$val ;;
          --host) HOST=$val ;;
          --user) ACCOUNT=$val ;;
          --base-dir) BASE_DIR_OPT=$val ;;
        esac
        ;;
      --update) set_action update ;;
      --reconfigure) set_action reconfigure ;;
      --uninstall) set_action uninstall ;;
      --doctor) set_action doctor ;;
      --purge) PURGE=1 ;;
      --yes | -y) YES=1 ;;
      --dry-run) DRY_RUN=1 ;;
      -h | --help)
        usage
        exit 0
        ;;
      *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
  done
}

# A full path without '..', '.', '//' or characters that .env and compose files would need quoted.
check_path() {
  case $2 in
    /*) ;;
    *) die "$1 must be a full path starting with /, got '$2'" ;;
  esac
  case $2 in
    *//* | */./* | */../* | */. | */..) die "$1 must be a plain full path without '.', '..' or '//', got '$2'" ;;
  esac
  if printf '%s' "$2" | LC_ALL=C grep -q '[^A-Za-z0-9._/@+-]'; then
    die "$1 may hold only letters, digits and . _ / @ + - (got '$2')"
  fi
}

strip_slash() {
  p=$1
  while [ "${#p}" -gt 1 ] && [ "${p%/}" != "$p" ]; do p=${p%/}; done
  printf '%s' "$p"
}

# The base directory holds every app's data: never the root of the system or a system directory.
check_base_dir() {
  check_path --base-dir "$1"
  case $1 in
    / | /etc | /usr | /bin | /sbin | /lib | /lib32 | /lib64 | /libx32 | /proc | /sys | /dev | /boot | /var | /run | \
      /home | /root | /opt | /srv | /mnt | /media | /tmp | /var/lib | /var/run | /var/log | /usr/local)
      die "--base-dir $1 is a system directory; choose a directory of its own, such as $DEFAULT_BASE_DIR"
      ;;
    /etc/* | /usr/* | /bin/* | /sbin/* | /lib/* | /lib32/* | /lib64/* | /libx32/* | /proc/* | /sys/* | /dev/* | /boot/* | /run/*)
      die "--base-dir $1 lies inside a system directory; choose a directory of its own, such as $DEFAULT_BASE_DIR"
      ;;
  esac
}

check_port() {
  case $1 in
    '' | *[!0-9]*) die "--port must be a number from 1 to 65535, got '$1'" ;;
  esac
  if [ "${#1}" -gt 5 ] || [ "$1" -lt 1 ] || [ "$1" -gt 65535 ]; then die "--port must be a number from 1 to 65535, got '$1'"; fi
}

# Prints the publish address in the form .env keeps it: IPv4 as is, IPv6 in square brackets.
normalize_bind() {
  b=$1
  case $b in
    \[*\]) b=${b#[}; b=${b%]} ;;
  esac
  case $b in
    *:*)
      if printf '%s' "$b" | LC_ALL=C grep -Eq '^[0-9A-Fa-f:.]+$' && [ "${#b}" -le 45 ]; then
        printf '[%s]' "$b"
        return 0
      fi
      ;;
    *)
      if printf '%s' "$b" | LC_ALL=C grep -Eq '^(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}$'; then
        printf '%s' "$b"
        return 0
      fi
      ;;
  esac
  return 1
}

check_name() {
  case $2 in
    -* | '') die "$1 must not start with '-', got '$2'" ;;
  esac
  if ! printf '%s' "$2" | LC_ALL=C grep -Eq "$3"; then die "$1 '$2' is not valid: $4"; fi
}

validate_args() {
  if [ -n "$DIR" ]; then
    check_path --dir "$DIR"
    DIR=$(strip_slash "$DIR")
    [ "$DIR" != / ] || die "--dir / is the root of the system; choose a directory of its own, such as $DEFAULT_DIR"
  fi
  if [ -n "$BASE_DIR_OPT" ]; then
    check_path --base-dir "$BASE_DIR_OPT"
    BASE_DIR_OPT=$(strip_slash "$BASE_DIR_OPT")
    check_base_dir "$BASE_DIR_OPT"
  fi
  [ -z "$PORT" ] || check_port "$PORT"
  if [ -n "$BIND" ]; then
    BIND=$(normalize_bind "$BIND") || die "--bind must be an IPv4 or IPv6 address (IPv6 as [::1]), got '$BIND'"
  fi
  [ -z "$BRANCH" ] || check_name --branch "$BRANCH" '^[A-Za-z0-9._/+-]+$' 'use letters, digits and . _ / + -'
  [ -z "$ACCOUNT" ] || check_name --user "$ACCOUNT" '^[a-z_][a-z0-9_-]*[$]?$' 'an account name of lower-case letters, digits, _ and -'
  [ -z "$HOST" ] || check_name --host "$HOST" '^[A-Za-z0-9.-]+(:[0-9]+)?$|^\[[0-9A-Fa-f:.]+\](:[0-9]+)?$' 'a host name or address, optionally with :port'
  case $TOKEN in
    *"$NL"* | *' '*) die '--token must not contain spaces or line breaks' ;;
  esac
  [ "$PURGE" = 0 ] || [ "$ACTION" = uninstall ] || die '--purge goes with --uninstall'
  case ${SVC_WACHT_POGINGEN-} in
    *[!0-9]*) die "SVC_WACHT_POGINGEN must be a whole number of attempts, got '$SVC_WACHT_POGINGEN'" ;;
  esac
  case $ACTION in
    update)
      if [ -n "$PORT$BIND$ACCOUNT$BASE_DIR_OPT" ]; then
        die '--update keeps .env; change --port, --bind, --user or --base-dir with --reconfigure'
      fi
      ;;
    reconfigure)
      [ -z "$BRANCH$TOKEN" ] || die '--reconfigure does not touch the source; use --update --branch/--token'
      ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Questions (from the terminal device, so `curl ... | sh` can still ask) and rights

have_tty() { (exec </dev/tty) 2>/dev/null; }

# ask QUESTION: yes/no; --yes answers yes. Returns 0 for yes.
ask() {
  if [ "$YES" = 1 ]; then
    say "$1 [y/N] yes (--yes)"
    return 0
  fi
  have_tty || die "no terminal to ask: '$1'; pass --yes to answer yes"
  printf '%s [y/N] ' "$1" >/dev/tty
  IFS= read -r reply </dev/tty || reply=''
  case $reply in
    y | Y | yes | Yes | YES | j | J | ja | Ja) return 0 ;;
  esac
  return 1
}

# prompt QUESTION DEFAULT: prints the answer (DEFAULT when empty or with --yes).
prompt() {
  if [ "$YES" = 1 ]; then
    printf '%s\n' "$2"
    return 0
  fi
  have_tty || die "no terminal to ask: '$1'; pass the option on the command line, or --yes for '$2'"
  printf '%s [%s] ' "$1" "$2" >/dev/tty
  IFS= read -r reply </dev/tty || reply=''
  printf '%s\n' "${reply:-$2}"
}

# as_root CMD...: runs CMD with elevated rights: directly as root, else through sudo or doas.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
    return
  fi
  if [ -z "$ROOT_CMD" ]; then
    if command -v sudo >/dev/null 2>&1; then
      ROOT_CMD=sudo
    elif command -v doas >/dev/null 2>&1; then
      ROOT_CMD=doas
    else
      die "this step needs root rights ($*); run as root or install sudo"
    fi
  fi
  if [ "$ROOT_CMD" = sudo ] && ! have_tty; then
    "$ROOT_CMD" -n "$@"
  else
    "$ROOT_CMD" "$@"
  fi
}

# show CMD...: the step as a command line.
show() {
  line='+'
  for a in "$@"; do
    case $a in
      *[!A-Za-z0-9._/:=@+,-]* | '') line="$line '$a'" ;;
      *) line="$line $a" ;;
    esac
  done
  say "$line"
}

# run CMD...: shows a step that changes something and runs it (not with --dry-run).
run() {
  show "$@"
  [ "$DRY_RUN" = 1 ] || "$@"
}

run_root() {
  show "$@"
  [ "$DRY_RUN" = 1 ] || as_root "$@"
}

# ---------------------------------------------------------------------------------------------
# Temporary files (the token's files among them) go when the script ends, however it ends.

cleanup() {
  if [ -n "$WORK" ] && [ -d "$WORK" ]; then rm -rf "$WORK"; fi
}

on_signal() {
  cleanup
  exit 130
}

make_work() {
  [ -z "$WORK" ] || return 0
  old_umask=$(umask)
  umask 077
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/kade-install.XXXXXX") || die 'cannot create a temporary directory'
  umask "$old_umask"
}

# ---------------------------------------------------------------------------------------------
# The source

# SOURCE: the repository URL, with --host replacing its host part.
source_url() {
  src=${SVC_SOURCE_URL:-$DEFAULT_SOURCE_URL}
  if [ -n "$HOST" ]; then
    scheme=${src%%://*}
    rest=${src#*://}
    case $rest in
      */*) path=/${rest#*/} ;;
      *) path='' ;;
    esac
    src="$scheme://$HOST$path"
  fi
  printf '%s' "$src"
}

# scheme://host of a URL (the part credentials are bound to).
url_origin() {
  u_scheme=${1%%://*}
  u_rest=${1#*://}
  u_host=${u_rest%%/*}
  u_host=${u_host##*@}
  printf '%s://%s' "$u_scheme" "$u_host"
}

# The archive of a branch or tag: <source without .git>/archive/<branch>.tar.gz, as GitHub, Gitea
# and Forgejo serve it (one top folder holding the tree).
archive_url() {
  a_src=${1%/}
  a_src=${a_src%.git}
  printf '%s/archive/%s.tar.gz' "$a_src" "$2"
}

percent_encode() {
  pe_rest=$1
  pe_out=''
  while [ -n "$pe_rest" ]; do
    pe_c=${pe_rest%"${pe_rest#?}"}
    pe_rest=${pe_rest#?}
    case $pe_c in
      [A-Za-z0-9._~-]) pe_out="$pe_out$pe_c" ;;
      *) pe_out="$pe_out$(printf '%%%02X' "'$pe_c")" ;;
    esac
  done
  printf '%s' "$pe_out"
}

# The token goes to git through a credential-store file and to curl through a config file, both
# 0600 in the private work directory and removed when the script ends.
GIT_AUTH=''
CURL_AUTH=''
setup_token() {
  [ -n "$TOKEN" ] || return 0
  [ "$DRY_RUN" = 0 ] || return 0
  make_work
  origin=$(url_origin "$1")
  case $origin in
    https://* | http://*) ;;
    *) die "--token works with http(s) sources; $1 is not one" ;;
  esac
  old_umask=$(umask)
  umask 077
  printf '%s://%s:%s@%s\n' "${origin%%://*}" "$TOKEN_USER" "$(percent_encode "$TOKEN")" "${origin#*://}" >"$WORK/git-credentials"
  curl_token=$(printf '%s' "$TOKEN" | sed 's/[\\"]/\\&/g')
  printf 'user = "%s:%s"\n' "$TOKEN_USER" "$curl_token" >"$WORK/curl-config"
  umask "$old_umask"
  chmod 600 "$WORK/git-credentials" "$WORK/curl-config"
  GIT_AUTH="$WORK/git-credentials"
  CURL_AUTH="$WORK/curl-config"
}

git_cmd() {
  if [ -n "$GIT_AUTH" ]; then
    GIT_TERMINAL_PROMPT=0 git -c credential.helper= -c "credential.helper=store --file=$GIT_AUTH" "$@"
  else
    GIT_TERMINAL_PROMPT=0 git "$@"
  fi
}

curl_get() {
  if [ -n "$CURL_AUTH" ]; then
    curl -fsSL --connect-timeout 15 --max-time 600 --config "$CURL_AUTH" "$@"
  else
    curl -fsSL --connect-timeout 15 --max-time 600 "$@"
  fi
}

# fetch_archive URL TARGET: unpacks the archive's single top folder into TARGET.
fetch_archive() {
  say "+ curl -fsSL $1 | tar -xz -C $2"
  [ "$DRY_RUN" = 0 ] || return 0
  make_work
  curl_get -o "$WORK/source.tar.gz" "$1" || die "cannot download $1 (curl failed; check the address, --branch and --token)"
  mkdir -p "$2"
  tar -xzf "$WORK/source.tar.gz" -C "$2" --strip-components=1 2>/dev/null ||
    { rm -rf "$2.unpack" && mkdir "$2.unpack" && tar -xzf "$WORK/source.tar.gz" -C "$2.unpack" && unpack_top "$2.unpack" "$2"; } ||
    die "cannot unpack $1"
  rm -f "$WORK/source.tar.gz"
  [ -f "$2/compose.yaml" ] || die "the archive $1 holds no compose.yaml; is it Kade's source?"
}

# busybox tar lacks --strip-components: move the one top folder's entries up by hand.
unpack_top() {
  set -- "$1" "$2" "$1"/*
  [ "$#" = 3 ] && [ -d "$3" ] || return 1
  (cd "$3" && tar -cf - .) | (cd "$2" && tar -xf -)
  rm -rf "$1"
}

fetch_source() {
  src=$(source_url)
  setup_token "$src"
  if command -v git >/dev/null 2>&1; then
    say "Fetching $src ($BRANCH) with git"
    show git clone --branch "$BRANCH" -- "$src" "$DIR"
    [ "$DRY_RUN" = 0 ] || return 0
    git_cmd clone --quiet --branch "$BRANCH" -- "$src" "$DIR" ||
      die "git clone of $src ($BRANCH) failed; check the address and --branch (a private source needs --token)"
  else
    url=$(archive_url "$src" "$BRANCH")
    say "git is not installed: fetching the archive $url"
    fetch_archive "$url" "$DIR"
  fi
}

# ---------------------------------------------------------------------------------------------
# The system: engine and compose

os_id() {
  if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    (. /etc/os-release && printf '%s %s' "${ID-}" "${ID_LIKE-}")
  fi
}

is_debian_like() {
  case " $(os_id) " in
    *' debian '* | *' ubuntu '*) return 0 ;;
  esac
  return 1
}

# The compose package apt offers: the v2 plugin when it has one, else docker-compose (v1).
apt_compose_package() {
  for p in docker-compose-v2 docker-compose-plugin docker-compose; do
    cand=$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    if [ -n "$cand" ] && [ "$cand" != '(none)' ]; then
      printf '%s' "$p"
      return 0
    fi
  done
  printf 'docker-compose'
}

find_docker() {
  DOCKER=''
  command -v docker >/dev/null 2>&1 || return 1
  if docker info >/dev/null 2>&1; then
    DOCKER=docker
  elif [ "$(id -u)" != 0 ] && as_root docker info >/dev/null 2>&1; then
    DOCKER='as_root docker'
  else
    return 2
  fi
}

find_compose() {
  COMPOSE=''
  if [ -n "$DOCKER" ] && $DOCKER compose version >/dev/null 2>&1; then
    COMPOSE="$DOCKER compose"
  elif command -v docker-compose >/dev/null 2>&1; then
    if [ "$DOCKER" = docker ]; then COMPOSE=docker-compose; else COMPOSE='as_root docker-compose'; fi
  else
    return 1
  fi
}

install_engine() {
  missing=$1
  if is_debian_like; then
    pkgs=''
    case $missing in docker*) pkgs=' docker.io' ;; esac
    case $missing in *compose*) pkgs="$pkgs $(apt_compose_package)" ;; esac
    say "Missing: $missing."
    if [ "$DRY_RUN" = 1 ]; then
      warn "$missing missing; an install would offer: apt-get install -y$pkgs"
      return 0
    fi
    ask "Install$pkgs with apt now?" || die "Kade needs$pkgs; install it (apt-get install$pkgs) and run the installer again"
    # shellcheck disable=SC2086 # the package names are separate words
    run_root apt-get install -y $pkgs || { run_root apt-get update && run_root apt-get install -y $pkgs; } || die "apt-get install$pkgs failed"
  else
    hint='https://docs.docker.com/engine/install/ (the engine with the compose plugin)'
    case " $(os_id) " in
      *' fedora '* | *' rhel '* | *' centos '*) hint='dnf install -y docker docker-compose' ;;
      *' alpine '*) hint='apk add docker docker-cli-compose && rc-update add docker && service docker start' ;;
      *' arch '*) hint='pacman -S docker docker-compose' ;;
      *' opensuse'* | *' sles '*) hint='zypper install docker docker-compose' ;;
    esac
    if [ "$DRY_RUN" = 1 ]; then
      warn "$missing missing; install it with: $hint"
      return 0
    fi
    die "$missing missing; install it with: $hint   and run the installer again"
  fi
}

check_system() {
  [ "$(uname -s)" = Linux ] || die "Kade's installer is for Linux; this is $(uname -s)"
  if ! command -v curl >/dev/null 2>&1; then
    if [ "$DRY_RUN" = 1 ]; then warn 'curl is missing (the health check needs it)'; else die 'curl is missing; install it (apt-get install curl) and run the installer again'; fi
  fi
  command -v git >/dev/null 2>&1 || command -v tar >/dev/null 2>&1 || die 'neither git nor tar is installed; install git'
  missing=''
  if ! command -v docker >/dev/null 2>&1; then
    missing=docker
    command -v docker-compose >/dev/null 2>&1 || missing='docker and docker compose'
  else
    rc=0
    find_docker || rc=$?
    if [ "$rc" != 0 ]; then
      [ "$DRY_RUN" = 1 ] || die 'the docker engine does not answer; start it (systemctl start docker) and run the installer again'
      warn 'the docker engine does not answer (is the docker service running? systemctl start docker)'
      DOCKER=docker
    fi
    find_compose || missing='docker compose'
  fi
  if [ -n "$missing" ]; then
    install_engine "$missing"
    if [ "$DRY_RUN" = 1 ]; then
      COMPOSE=${COMPOSE:-docker compose}
      return 0
    fi
    if command -v systemctl >/dev/null 2>&1; then as_root systemctl enable --now docker >/dev/null 2>&1 || true; fi
    find_docker || die 'the docker engine does not answer after the install; start it (systemctl start docker) and run the installer again'
    find_compose || die 'docker compose is still missing after the install'
  fi
  say "Engine: $($DOCKER version --format '{{.Server.Version}}' 2>/dev/null || echo 'not answering'), compose: ${COMPOSE#as_root }"
}

# compose ARGS...: compose in the install directory, where it reads compose.yaml and .env.
compose() {
  # shellcheck disable=SC2086 # "docker compose" is two words
  show ${COMPOSE#as_root } "$@"
  [ "$DRY_RUN" = 1 ] && return 0
  # The project name from .env, given explicitly: a COMPOSE_PROJECT_NAME in the caller's environment must not win.
  (cd "$DIR" && $COMPOSE -p "$PROJECT" -f compose.yaml "$@")
}

# ---------------------------------------------------------------------------------------------
# .env

# env_get KEY: the value of KEY in the install directory's .env (empty when absent).
env_get() {
  [ -f "$DIR/.env" ] || return 0
  sed -n "s/^$1=//p" "$DIR/.env" | tail -n 1 | sed "s/^'\\(.*\\)'\$/\\1/; s/^\"\\(.*\\)\"\$/\\1/"
}

# valid_zone NAME: whether NAME looks like an IANA zone (Europe/Amsterdam, UTC), nothing a path could escape with.
valid_zone() {
  case $1 in '' | *..* | /* | *[!A-Za-z0-9_+/-]*) return 1 ;; esac
}

# host_timezone: the host's zone, so Kade and its apps keep the host's clock (TIMEZONE defaults to TZ): /etc/timezone,
# then timedatectl, then the zoneinfo link /etc/localtime; UTC when none says. SVC_HOST_ETC stands for /etc in tests.
host_timezone() {
  etc=${SVC_HOST_ETC:-/etc}
  zone=$(sed -n '1{s/[[:space:]]//g;p;}' "$etc/timezone" 2>/dev/null || true)
  if ! valid_zone "$zone" && command -v timedatectl >/dev/null 2>&1; then
    zone=$(timedatectl show --property=Timezone --value 2>/dev/null || true)
  fi
  if ! valid_zone "$zone"; then
    zone=$(readlink "$etc/localtime" 2>/dev/null | sed -n 's#^.*zoneinfo/##p')
  fi
  valid_zone "$zone" || zone=UTC
  printf '%s\n' "$zone"
}

# choose_timezone: TZ for .env: the one .env has (a user's choice stays), else the host's. SVC_LOCALTIME: the host
# file compose.yaml mounts read-only on /etc/localtime, so the container's C library keeps the host's clock too;
# /dev/null where the host has none (compose would otherwise make an empty folder at the missing path).
choose_timezone() {
  TZ_VALUE=$(env_get TZ)
  valid_zone "$TZ_VALUE" || TZ_VALUE=$(host_timezone)
  etc=${SVC_HOST_ETC:-/etc}
  if [ -f "$etc/localtime" ]; then
    LOCALTIME="$etc/localtime"
  elif [ -f "/usr/share/zoneinfo/$TZ_VALUE" ]; then
    LOCALTIME="/usr/share/zoneinfo/$TZ_VALUE"
  else
    LOCALTIME=/dev/null
  fi
}

# write_env: .env (0600) with the chosen values; lines of other keys a user added stay.
write_env() {
  choose_timezone
  if [ "$DRY_RUN" = 1 ]; then
    say "+ write $DIR/.env (mode 0600): SVC_PORT=$PORT SVC_BIND=$BIND SVC_UID=$SVC_UID SVC_GID=$SVC_GID BASE_DIR=$BASE_DIR TZ=$TZ_VALUE SVC_LOCALTIME=$LOCALTIME"
    return 0
  fi
  make_work
  old_umask=$(umask)
  umask 077
  {
    say '# Written by install.sh; change with: sh install.sh --reconfigure'
    say "COMPOSE_PROJECT_NAME=$PROJECT"
    say "SVC_PORT=$PORT"
    say "SVC_BIND=$BIND"
    say "SVC_UID=$SVC_UID"
    say "SVC_GID=$SVC_GID"
    say "BASE_DIR=$BASE_DIR"
    say "TZ=$TZ_VALUE"
    say "SVC_LOCALTIME=$LOCALTIME"
    say "SVC_BRANCH=$BRANCH"
    # Archive installs have no git remote; the next --update downloads from here.
    [ -d "$DIR/.git" ] || say "SVC_SOURCE_URL=$(source_url)"
    [ -z "${SVC_IMAGE-}" ] || say "SVC_IMAGE=$SVC_IMAGE"
    [ -z "${SVC_TAG-}" ] || say "SVC_TAG=$SVC_TAG"
    [ -z "${SVC_BASE_IMAGE-}" ] || say "SVC_BASE_IMAGE=$SVC_BASE_IMAGE"
    if [ -f "$DIR/.env" ]; then
      grep -v -E '^(# Written by install.sh|COMPOSE_PROJECT_NAME=|SVC_PORT=|SVC_BIND=|SVC_UID=|SVC_GID=|BASE_DIR=|TZ=|SVC_LOCALTIME=|SVC_BRANCH=|SVC_SOURCE_URL=|SVC_IMAGE=|SVC_TAG=|SVC_BASE_IMAGE=)' "$DIR/.env" || true
    fi
  } >"$WORK/env"
  umask "$old_umask"
  chmod 600 "$WORK/env"
  mv -f "$WORK/env" "$DIR/.env"
  chmod 600 "$DIR/.env"
  say "Wrote $DIR/.env (mode 0600)"
}

load_env() {
  [ -f "$DIR/.env" ] || die "no Kade installation in $DIR (no .env); install first, or pass --dir"
  PROJECT=$(env_get COMPOSE_PROJECT_NAME)
  PROJECT=${PROJECT:-kade}
  CUR_PORT=$(env_get SVC_PORT)
  CUR_BIND=$(env_get SVC_BIND)
  CUR_UID=$(env_get SVC_UID)
  CUR_GID=$(env_get SVC_GID)
  CUR_BASE_DIR=$(env_get BASE_DIR)
  CUR_BRANCH=$(env_get SVC_BRANCH)
  [ -n "${SVC_IMAGE-}" ] || SVC_IMAGE=$(env_get SVC_IMAGE)
  [ -n "${SVC_TAG-}" ] || SVC_TAG=$(env_get SVC_TAG)
  [ -n "${SVC_BASE_IMAGE-}" ] || SVC_BASE_IMAGE=$(env_get SVC_BASE_IMAGE)
}

# ---------------------------------------------------------------------------------------------
# The account

account_ids() {
  SVC_UID=$(id -u "$1" 2>/dev/null) || return 1
  SVC_GID=$(id -g "$1" 2>/dev/null) || return 1
}

create_svc_account() {
  if id -u svc >/dev/null 2>&1; then return 0; fi
  say "Creating the system account 'svc'"
  nologin=/usr/sbin/nologin
  [ -x "$nologin" ] || nologin=/sbin/nologin
  [ -x "$nologin" ] || nologin=/bin/false
  if command -v useradd >/dev/null 2>&1; then
    run_root useradd --system --user-group --no-create-home --home-dir /nonexistent --shell "$nologin" svc
  elif command -v adduser >/dev/null 2>&1; then
    run_root adduser -S -D -H -h /nonexistent -s "$nologin" svc
  else
    die "cannot create the account 'svc' (no useradd or adduser); create it, or pass --user root"
  fi
}

# choose_account: sets ACCOUNT, SVC_UID and SVC_GID (asks unless --user was given).
choose_account() {
  invoker=${SUDO_USER:-${DOAS_USER:-$(id -un)}}
  if [ -z "$ACCOUNT" ]; then
    if [ "$YES" != 1 ] && [ "$DRY_RUN" = 1 ] && ! have_tty; then
      # A dry run shows every step: without a terminal to ask, it goes on with the recommended answer and says so.
      ACCOUNT=svc
      say "Account: an install would ask which account Kade runs as (no terminal here); shown for the recommended 'svc' (choose with --user)"
    elif [ "$YES" = 1 ] || ! have_tty; then
      [ "$YES" = 1 ] || die "no terminal to ask which account Kade runs as; pass --user svc (or root, or an account name), or --yes for svc"
      ACCOUNT=svc
      say "Account: svc (a new system account; --yes)"
    else
      {
        say 'Which account should Kade run as?'
        say "  1) a new system account 'svc' (recommended)"
        say "  2) your account '$invoker'"
        say '  3) another existing account'
        say '  4) root'
      } >/dev/tty
      choice=$(prompt 'Choice' 1)
      case $choice in
        1) ACCOUNT=svc ;;
        2) ACCOUNT=$invoker ;;
        3)
          ACCOUNT=$(prompt 'Account name' "$invoker")
          check_name --user "$ACCOUNT" '^[a-z_][a-z0-9_-]*[$]?$' 'an account name of lower-case letters, digits, _ and -'
          ;;
        4) ACCOUNT=root ;;
        *) die "no choice '$choice'; run again and answer 1 to 4, or pass --user" ;;
      esac
    fi
  fi
  case $ACCOUNT in
    root)
      SVC_UID=0
      SVC_GID=0
      ;;
    svc)
      if [ "$DRY_RUN" = 1 ] && ! id -u svc >/dev/null 2>&1; then
        say "+ create the system account 'svc'"
        SVC_UID='(new)'
        SVC_GID='(new)'
        return 0
      fi
      create_svc_account
      account_ids svc || die "the account 'svc' could not be read after creating it"
      ;;
    *) account_ids "$ACCOUNT" || die "no account '$ACCOUNT' on this system; create it, or pass --user svc (created for you) or --user root" ;;
  esac
  say "Account: $ACCOUNT (uid $SVC_UID, gid $SVC_GID)"
}

# ---------------------------------------------------------------------------------------------
# Health

# The address to reach a publish address from this host: the loopback for the wildcards.
reach_host() {
  case $1 in
    0.0.0.0) printf '127.0.0.1' ;;
    '[::]' | '[::0]') printf '[::1]' ;;
    *) printf '%s' "$1" ;;
  esac
}

# The address to print: for the wildcards, this host's first address.
public_host() {
  case $1 in
    0.0.0.0 | '[::]' | '[::0]')
      ph=$(hostname -I 2>/dev/null | awk '{print $1}') || ph=''
      case $ph in
        *:*) printf '[%s]' "$ph" ;;
        '') printf '%s' "$(hostname 2>/dev/null || echo localhost)" ;;
        *) printf '%s' "$ph" ;;
      esac
      ;;
    *) printf '%s' "$1" ;;
  esac
}

# wait_healthy HOST PORT: polls /healthz, one dot per attempt; 0 when it answered.
wait_healthy() {
  [ "$DRY_RUN" = 0 ] || {
    say "+ poll http://$1:$2/healthz up to ${SVC_WACHT_POGINGEN:-90} times"
    return 0
  }
  attempts=${SVC_WACHT_POGINGEN:-90}
  url="http://$1:$2/healthz"
  printf 'Waiting for %s ' "$url"
  n=0
  while [ "$n" -lt "$attempts" ]; do
    n=$((n + 1))
    printf '.'
    if curl -fsS -o /dev/null --connect-timeout 2 --max-time 5 "$url" 2>/dev/null; then
      say ' ok'
      return 0
    fi
    [ "$n" -ge "$attempts" ] || sleep 1
  done
  say ' no answer'
  return 1
}

report_address() {
  addr="http://$(public_host "$BIND"):$PORT/"
  say ''
  say "Kade runs at $addr"
  say "Open it now and create the admin account at once: the first account created becomes the"
  say 'admin, and until it exists anyone who reaches this address can create it.'
}

# ---------------------------------------------------------------------------------------------
# Directories

prepare_dir() {
  if [ -e "$DIR/.env" ]; then
    die "Kade is already installed in $DIR; use --update, --reconfigure or --uninstall"
  fi
  if [ -e "$DIR" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
    die "$DIR exists and is not empty; choose another --dir or empty it"
  fi
  parent=$(dirname "$DIR")
  if [ -w "$parent" ] || { [ -d "$DIR" ] && [ -w "$DIR" ]; }; then
    [ -d "$DIR" ] || run mkdir -p "$DIR"
  else
    # Only the directory needs root; the checkout itself belongs to the invoking account.
    run_root mkdir -p "$DIR"
    run_root chown "$(id -u):$(id -g)" "$DIR"
  fi
}

prepare_base_dir() {
  if [ -d "$BASE_DIR" ]; then return 0; fi
  run_root mkdir -p "$BASE_DIR"
  case $SVC_UID in
    *[!0-9]*) ;;
    *) run_root chown "$SVC_UID:$SVC_GID" "$BASE_DIR" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Build or pull, start

build_or_pull() {
  if [ -n "${SVC_IMAGE-}" ]; then
    say "Pulling $SVC_IMAGE"
    compose pull
  else
    say 'Building the image (this takes a few minutes the first time)'
    compose build
  fi
}

start_service() {
  compose up -d --remove-orphans "$@"
}

# ---------------------------------------------------------------------------------------------
# Actions

do_install() {
  DIR=${DIR:-$DEFAULT_DIR}
  PORT=${PORT:-$DEFAULT_PORT}
  BIND=${BIND:-$DEFAULT_BIND}
  BRANCH=${BRANCH:-$DEFAULT_BRANCH}
  BASE_DIR=${BASE_DIR_OPT:-$DEFAULT_BASE_DIR}
  PROJECT=${COMPOSE_PROJECT_NAME:-kade}
  [ "$DRY_RUN" = 0 ] || say 'Dry run: nothing is changed.'
  check_system
  case $BASE_DIR/ in "$DIR"/*) die "--base-dir must lie outside the install directory $DIR" ;; esac
  [ ! -e "$DIR/.env" ] || die "Kade is already installed in $DIR; use --update, --reconfigure or --uninstall"
  say "Install Kade from $(source_url) ($BRANCH) into $DIR: http://$BIND:$PORT, base directory $BASE_DIR"
  [ "$DRY_RUN" = 1 ] || ask 'Continue?' || die 'stopped; nothing was changed'
  prepare_dir
  fetch_source
  choose_account
  prepare_base_dir
  write_env
  build_or_pull || die "the image could not be $( [ -n "${SVC_IMAGE-}" ] && echo pulled || echo built); see the output above. Run the installer again with --update once fixed"
  start_service || die "Kade did not start; see the output above (logs: cd $DIR && ${COMPOSE#as_root } logs)"
  if ! wait_healthy "$(reach_host "$BIND")" "$PORT"; then
    printf 'error: Kade was installed and started but did not answer on http://%s:%s/healthz; see: cd %s && %s logs\n' \
      "$(reach_host "$BIND")" "$PORT" "$DIR" "${COMPOSE#as_root }" >&2
    exit 1
  fi
  [ "$DRY_RUN" = 0 ] || {
    say 'Dry run done: nothing was changed.'
    return 0
  }
  report_address
}

# switch_remote: --host on an existing checkout points its remote to the new host at once.
switch_remote() {
  [ -n "$HOST" ] && [ -d "${DIR:-$DEFAULT_DIR}/.git" ] || return 0
  DIR=${DIR:-$DEFAULT_DIR}
  src=$(source_url)
  old=$(git -C "$DIR" remote get-url origin 2>/dev/null || true)
  [ "$old" != "$src" ] || return 0
  say "Source host: $old -> $src"
  run git -C "$DIR" remote set-url origin "$src"
}

# The tree before an update, to go back to when the update fails.
PREV=''
update_source() {
  if [ -d "$DIR/.git" ]; then
    command -v git >/dev/null 2>&1 || die "git is missing; $DIR is a git checkout and needs it for --update"
    src=$(git -C "$DIR" remote get-url origin)
    setup_token "$src"
    PREV=$(git -C "$DIR" rev-parse HEAD)
    say "Fetching $BRANCH from $src"
    # A branch or a tag, moved or not: FETCH_HEAD is what the source has under that name now.
    show git fetch --force origin "$BRANCH"
    [ "$DRY_RUN" = 1 ] && return 0
    (cd "$DIR" && git_cmd fetch --quiet --force origin "$BRANCH") || die "git fetch of $BRANCH failed; check the address, --branch and --token. Nothing was changed"
    new=$(git -C "$DIR" rev-parse 'FETCH_HEAD^{commit}')
    say "Source: ${PREV%"${PREV#???????}"} -> ${new%"${new#???????}"}"
    (cd "$DIR" && git reset --quiet --hard "$new") || die 'git reset failed'
  else
    src=${SVC_SOURCE_URL:-$(env_get SVC_SOURCE_URL)}
    [ -z "$src" ] || SVC_SOURCE_URL=$src
    src=$(source_url)
    setup_token "$src"
    url=$(archive_url "$src" "$BRANCH")
    PREV="$DIR.previous"
    say "Fetching the archive $url (the tree is replaced; .env stays)"
    [ "$DRY_RUN" = 1 ] && return 0
    rm -rf "$DIR.next" "$PREV"
    fetch_archive "$url" "$DIR.next"
    cp -p "$DIR/.env" "$DIR.next/.env"
    mv "$DIR" "$PREV"
    mv "$DIR.next" "$DIR"
  fi
}

rollback() {
  printf 'error: %s\n' "$1" >&2
  [ -n "$PREV" ] || exit 1
  if [ -d "$DIR/.git" ]; then
    say "Rolling back to ${PREV%"${PREV#???????}"}"
    (cd "$DIR" && git reset --quiet --hard "$PREV") || die "the rollback to $PREV failed; run: cd $DIR && git reset --hard $PREV"
  else
    say 'Rolling back to the previous tree'
    rm -rf "$DIR.failed"
    mv "$DIR" "$DIR.failed" && mv "$PREV" "$DIR" && rm -rf "$DIR.failed"
  fi
  if build_or_pull && start_service --force-recreate && wait_healthy "$(reach_host "$BIND")" "$PORT"; then
    printf 'error: the update failed; Kade was rolled back to the previous version and runs again\n' >&2
  else
    printf 'error: the update failed and the previous version did not come back either; see: cd %s && %s logs\n' "$DIR" "${COMPOSE#as_root }" >&2
  fi
  exit 1
}

do_update() {
  DIR=${DIR:-$DEFAULT_DIR}
  load_env
  PORT=$CUR_PORT
  BIND=$CUR_BIND
  SVC_UID=$CUR_UID
  SVC_GID=$CUR_GID
  BASE_DIR=$CUR_BASE_DIR
  BRANCH=${BRANCH:-${CUR_BRANCH:-$DEFAULT_BRANCH}}
  [ "$DRY_RUN" = 0 ] || say 'Dry run: nothing is changed.'
  check_system
  update_source
  # An install from before TZ was written gets the host's zone at its next update.
  if [ "$BRANCH" != "$CUR_BRANCH" ] || [ -z "$(env_get TZ)" ]; then write_env; fi
  build_or_pull || rollback 'the update could not be built or pulled'
  # Restarted even when the image stayed the same: the update promises a fresh start.
  start_service --force-recreate || rollback 'the updated Kade did not start'
  wait_healthy "$(reach_host "$BIND")" "$PORT" || rollback "the updated Kade did not answer on http://$(reach_host "$BIND"):$PORT/healthz"
  if [ -d "$PREV" ] && [ "$PREV" = "$DIR.previous" ]; then rm -rf "$PREV"; fi
  [ "$DRY_RUN" = 0 ] || {
    say 'Dry run done: nothing was changed.'
    return 0
  }
  say "Kade is updated and runs at http://$(public_host "$BIND"):$PORT/"
}

do_reconfigure() {
  DIR=${DIR:-$DEFAULT_DIR}
  load_env
  asked=0
  if [ -z "$PORT$BIND$ACCOUNT$BASE_DIR_OPT" ] && [ "$YES" = 0 ]; then
    asked=1
    PORT=$(prompt 'Port' "$CUR_PORT")
    check_port "$PORT"
    BIND=$(prompt 'Bind address' "$CUR_BIND")
    BIND=$(normalize_bind "$BIND") || die "not an IPv4 or IPv6 address: $BIND"
    BASE_DIR_OPT=$(prompt 'Base directory' "$CUR_BASE_DIR")
    check_base_dir "$BASE_DIR_OPT"
  fi
  PORT=${PORT:-$CUR_PORT}
  BIND=${BIND:-$CUR_BIND}
  BASE_DIR=${BASE_DIR_OPT:-$CUR_BASE_DIR}
  BRANCH=${CUR_BRANCH:-$DEFAULT_BRANCH}
  [ "$DRY_RUN" = 0 ] || say 'Dry run: nothing is changed.'
  check_system
  if [ -n "$ACCOUNT" ] || [ "$asked" = 1 ]; then
    choose_account
  else
    SVC_UID=$CUR_UID
    SVC_GID=$CUR_GID
  fi
  if [ "$BASE_DIR" != "$CUR_BASE_DIR" ] && [ -d "$CUR_BASE_DIR" ] && [ -n "$(ls -A "$CUR_BASE_DIR" 2>/dev/null)" ]; then
    warn "the apps and data in $CUR_BASE_DIR are not moved; move them to $BASE_DIR yourself (Kade's Settings screen can move them while Kade runs)"
  fi
  prepare_base_dir
  make_work
  WORK_ENV_BACKUP="$WORK/env.previous"
  if [ "$DRY_RUN" = 0 ]; then cp -p "$DIR/.env" "$WORK_ENV_BACKUP"; fi
  write_env
  if start_service && wait_healthy "$(reach_host "$BIND")" "$PORT"; then
    rm -f "$WORK_ENV_BACKUP"
    [ "$DRY_RUN" = 0 ] || {
      say 'Dry run done: nothing was changed.'
      return 0
    }
    say "Kade is reconfigured and runs at http://$(public_host "$BIND"):$PORT/"
    return 0
  fi
  printf 'error: Kade did not come up with the new settings; putting the previous .env back\n' >&2
  mv -f "$WORK_ENV_BACKUP" "$DIR/.env"
  if start_service --force-recreate && wait_healthy "$(reach_host "$CUR_BIND")" "$CUR_PORT"; then
    printf 'error: the reconfiguration failed; Kade runs again with the previous settings\n' >&2
  else
    printf 'error: the reconfiguration failed and the previous settings did not come back either; see: cd %s && %s logs\n' "$DIR" "${COMPOSE#as_root }" >&2
  fi
  exit 1
}

do_uninstall() {
  DIR=${DIR:-$DEFAULT_DIR}
  load_env
  check_system
  say "Stopping Kade ($PROJECT)"
  compose down --remove-orphans || die "compose down failed in $DIR"
  volumes=''
  if [ -n "$DOCKER" ]; then
    volumes=$($DOCKER volume ls -q --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null || true)
  fi
  account=''
  case $CUR_UID in
    '' | 0) ;;
    *) account=$(getent passwd "$CUR_UID" 2>/dev/null | cut -d: -f1) || account='' ;;
  esac
  if [ "$PURGE" = 1 ]; then
    for v in $volumes; do
      if ask "Remove the data volume $v (Kade's database, users and settings)?"; then run $DOCKER volume rm "$v" && volumes=$(printf '%s\n' "$volumes" | grep -vx "$v" || true); fi
    done
    if [ -n "$CUR_BASE_DIR" ] && [ -d "$CUR_BASE_DIR" ]; then
      if ask "Remove the data directory $CUR_BASE_DIR (every app, its data and the backups)?"; then
        for c in $($DOCKER ps -aq --filter "label=com.docker.compose.project.working_dir" 2>/dev/null); do
          wd=$($DOCKER inspect --format '{{index .Config.Labels "com.docker.compose.project.working_dir"}}' "$c" 2>/dev/null || true)
          case $wd/ in "$CUR_BASE_DIR"/*) warn "an app still runs from $wd; stop it first if the removal fails" ;; esac
        done
        run_root rm -rf "$CUR_BASE_DIR"
      fi
    fi
    if [ -n "$account" ] && [ "$account" = svc ]; then
      if ask "Remove the account '$account'?"; then
        if command -v userdel >/dev/null 2>&1; then run_root userdel "$account"; else run_root deluser "$account"; fi
        account=''
      fi
    fi
  fi
  say ''
  say 'Kade is stopped. What remains:'
  say "  the install directory $DIR (with .env): remove with  rm -rf $DIR"
  for v in $volumes; do say "  the data volume $v: remove with  docker volume rm $v"; done
  if [ -n "$CUR_BASE_DIR" ] && [ -d "$CUR_BASE_DIR" ]; then say "  the data directory (BASE_DIR) $CUR_BASE_DIR: remove with  rm -rf $CUR_BASE_DIR"; fi
  if [ -n "$account" ]; then say "  the account '$account' (uid $CUR_UID): remove with  userdel $account"; fi
  [ "$PURGE" = 1 ] || say 'sh install.sh --uninstall --purge removes the volume, the data directory and the account.'
}

do_doctor() {
  DIR=${DIR:-$DEFAULT_DIR}
  doctor="$DIR/scripts/doctor.sh"
  [ -f "$doctor" ] || die "no $doctor; is Kade installed in $DIR? (pass --dir)"
  # The same options; the install directory also in SVC_INSTALL_DIR (the default when --dir was not given).
  SVC_INSTALL_DIR=$DIR exec sh "$doctor" "$@"
}

main() {
  parse_args "$@"
  validate_args
  trap cleanup EXIT
  trap on_signal INT TERM HUP
  if [ "$ACTION" != doctor ]; then switch_remote; fi
  case $ACTION in
    install) do_install ;;
    update) do_update ;;
    reconfigure) do_reconfigure ;;
    uninstall) do_uninstall ;;
    doctor) do_doctor "$@" ;;
  esac
}

main "$@"
