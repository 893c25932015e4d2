#!/bin/sh
# Kade's doctor (`install.sh --doctor`, or `sh scripts/doctor.sh [--dir DIR]`): inspects an installation
# without changing anything. Every check prints `OK|WARN|ERROR <what>`, and for a finding the command that
# fixes it. Exit code 1 when any check is an error; warnings exit 0.
#
# The host side is checked here (container, address, account, the BASE_DIR mounts from both sides, .env,
# free space); what only Kade knows (the engine as it sees it, the folders it uses, which folders count as
# apps, the store) comes from Kade itself: `node dist/server/doctor/doctor-cli.js` inside its container,
# the same report as GET /api/doctor.
set -u

ERRORS=0
DIR=''
while [ $# -gt 0 ]; do
  case $1 in
    --dir) [ $# -ge 2 ] || { echo 'doctor: --dir needs a directory' >&2; exit 2; }; DIR=$2; shift ;;
    --dir=*) DIR=${1#--dir=} ;;
    *) ;; # install.sh passes all its options on; the others do not concern the doctor
  esac
  shift
done
[ -n "$DIR" ] || DIR=$(cd "$(dirname "$0")/.." && pwd)
DIR=$(cd "$DIR" 2>/dev/null && pwd) || { echo "ERROR install directory $DIR does not exist"; echo '  fix: sh install.sh --doctor --dir <the install directory>'; exit 1; }
ENV_FILE="$DIR/.env"

ok() { printf 'OK %s\n' "$1"; }
warn() {
  printf 'WARN %s\n' "$1"
  [ -z "${2:-}" ] || printf '  fix: %s\n' "$2"
}
err() {
  printf 'ERROR %s\n' "$1"
  [ -z "${2:-}" ] || printf '  fix: %s\n' "$2"
  ERRORS=$((ERRORS + 1))
}

# env_get KEY: the last value of KEY in .env, without surrounding quotes (empty when absent).
env_get() {
  [ -r "$ENV_FILE" ] || return 0
  sed -n "s/^$1=//p" "$ENV_FILE" | tail -n 1 | sed "s/^'\\(.*\\)'\$/\\1/; s/^\"\\(.*\\)\"\$/\\1/"
}

# count_here PATH: entries of a folder on this host, or missing / not_a_folder / unreadable.
count_here() {
  # ls -A counts names as Kade's readdir does; a name with a newline would count twice, which only blurs a number.
  # shellcheck disable=SC2012
  if [ -d "$1" ]; then
    if [ -r "$1" ] && [ -x "$1" ]; then ls -A "$1" | wc -l | tr -d ' '; else echo unreadable; fi
  elif [ -e "$1" ] || [ -L "$1" ]; then echo not_a_folder
  else echo missing
  fi
}

# The compose command of this host, for the fixes: the plugin (v2), else the standalone v1.
COMPOSE='docker compose'
if ! docker compose version >/dev/null 2>&1 && command -v docker-compose >/dev/null 2>&1; then COMPOSE=docker-compose; fi
RECREATE="cd $DIR && $COMPOSE up -d --force-recreate"

# --- .env -----------------------------------------------------------------------------------
if [ ! -f "$ENV_FILE" ]; then
  err "$ENV_FILE does not exist" "sh install.sh --reconfigure --dir $DIR"
else
  mode=$(stat -c %a "$ENV_FILE" 2>/dev/null || echo unknown)
  if [ "$mode" = 600 ]; then ok "$ENV_FILE has mode 0600"
  else err "$ENV_FILE has mode $mode; it holds secrets and must be readable by its owner only (0600)" "chmod 600 $ENV_FILE"
  fi
fi
PROJECT=$(env_get COMPOSE_PROJECT_NAME); PROJECT=${PROJECT:-kade}
PORT=$(env_get SVC_PORT); PORT=${PORT:-8420}
BIND=$(env_get SVC_BIND); BIND=${BIND:-127.0.0.1}
SVC_UID=$(env_get SVC_UID)
SVC_GID=$(env_get SVC_GID)
BASE_DIR=$(env_get BASE_DIR)

# --- the engine and the container -----------------------------------------------------------
CONTAINER=''
RUNNING=0
if ! docker info >/dev/null 2>&1; then
  err 'the container engine does not answer (docker info failed)' 'sudo systemctl start docker'
else
  CONTAINER=$(docker ps -a -q --filter "label=com.docker.compose.project=$PROJECT" | head -n 1)
  if [ -z "$CONTAINER" ]; then
    err "no container of compose project '$PROJECT' exists" "cd $DIR && $COMPOSE up -d"
  else
    state=$(docker inspect -f '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}' "$CONTAINER")
    name=${state%% *}; name=${name#/}
    rest=${state#* }; status=${rest%% *}; health=${rest#* }
    if [ "$status" != running ]; then
      err "container $name is $status" "$RECREATE"
    else
      RUNNING=1
      case $health in
        healthy | none) ok "container $name is running${health:+ ($health)}" ;;
        starting) warn "container $name is running, its health check is still starting" "docker logs --tail 50 $name" ;;
        *) err "container $name is running but $health" "docker logs --tail 50 $name" ;;
      esac
    fi
  fi
fi

# --- reachability ---------------------------------------------------------------------------
case $BIND in
  0.0.0.0 | '') HOST=127.0.0.1 ;;
  :: | '[::]') HOST='[::1]' ;;
  \[*) HOST=$BIND ;;
  *:*) HOST="[$BIND]" ;;
  *) HOST=$BIND ;;
esac
URL="http://$HOST:$PORT/healthz"
if ! command -v curl >/dev/null 2>&1; then
  warn "curl is missing, so $URL was not tried" 'sudo apt-get install curl'
elif curl -fsS -m 5 -o /dev/null -g "$URL" 2>/dev/null; then
  ok "Kade answers at $URL"
else
  err "Kade does not answer at $URL (SVC_BIND=$BIND, SVC_PORT=$PORT)" "docker logs --tail 50 ${CONTAINER:-<container>}; then $RECREATE"
fi

# --- the account ----------------------------------------------------------------------------
if [ -z "$SVC_UID" ]; then
  warn "SVC_UID is not set in $ENV_FILE" "sh install.sh --reconfigure --dir $DIR"
else
  if [ "$SVC_UID" = 0 ] || awk -F: -v u="$SVC_UID" '$3 == u { found = 1 } END { exit !found }' /etc/passwd 2>/dev/null ||
    { command -v getent >/dev/null 2>&1 && getent passwd "$SVC_UID" >/dev/null 2>&1; }; then
    ok "uid $SVC_UID (SVC_UID) exists on this host"
  else
    warn "uid $SVC_UID (SVC_UID) has no account on this host" "sudo useradd --system --uid $SVC_UID --no-create-home kade"
  fi
  if [ "$RUNNING" = 1 ]; then
    # The engine needs a pid column in what it asks ps for; uids are the host's (no user namespaces).
    runs=$(docker top "$CONTAINER" -o pid,uid,args 2>/dev/null | awk '/dist\/server\/main\.js/ { print $2; exit }')
    if [ -z "$runs" ]; then warn "the Kade process was not found in container $name" "docker logs --tail 50 $name"
    elif [ "$runs" = "$SVC_UID" ]; then ok "the Kade process in container $name runs as uid $runs, as SVC_UID says"
    else err "the Kade process in container $name runs as uid $runs but SVC_UID is $SVC_UID" "$RECREATE"
    fi
  fi
fi

# --- BASE_DIR mounted for real: both sides compared -----------------------------------------
if [ -z "$BASE_DIR" ]; then
  err "BASE_DIR is not set in $ENV_FILE" "sh install.sh --reconfigure --dir $DIR"
elif [ "$RUNNING" = 1 ]; then
  TAB=$(printf '\t')
  mounts=$(docker inspect -f '{{range .Mounts}}{{if eq .Type "bind"}}{{.Destination}}{{"\t"}}{{.Source}}{{"\n"}}{{end}}{{end}}' "$CONTAINER")
  under=$(printf '%s\n' "$mounts" | while IFS="$TAB" read -r dst _src; do
    case $dst in "$BASE_DIR" | "$BASE_DIR"/*) printf '%s\n' "$dst" ;; esac
  done)
  # Besides Kade's folders and the mounts, every folder directly under BASE_DIR on the host: one the
  # container lacks shows that BASE_DIR is not the host's.
  top=$(for e in "$BASE_DIR"/* "$BASE_DIR"/.[!.]*; do [ -d "$e" ] && printf '%s\n' "$BASE_DIR/${e##*/}"; done)
  res=$(printf '%s\n%s\n%s\n%s\n%s\n%s\n' "$BASE_DIR" "$BASE_DIR/stacks" "$BASE_DIR/appdata" "$BASE_DIR/backups" "$top" "$under" | awk 'NF && !seen[$0]++' |
    while IFS= read -r path; do
      # The host's side is the same path: compose mounts BASE_DIR at the same path inside and outside,
      # so a container folder fed from anywhere else is exactly what this check is for.
      host=$path
      outside=$(count_here "$host")
      # shellcheck disable=SC2016 # expanded by the container's shell
      inside=$(docker exec "$CONTAINER" sh -c 'if [ -d "$1" ]; then ls -A "$1" | wc -l; elif [ -e "$1" ]; then echo not_a_folder; else echo missing; fi' sh "$path" 2>/dev/null | tr -d ' ')
      where="\"$path\""
      case "$inside/$outside" in
        missing/missing) warn "$where is missing in the container and on the host (Kade makes its folders when it starts)" "$RECREATE" ;;
        missing/[0-9]*) printf 'ERROR %s\n  fix: %s\n' "$where is missing in the container but exists on the host with $outside entries: it is not mounted into Kade's container" "$RECREATE" ;;
        0/0) ok "$where: empty in the container and on the host" ;;
        0/[0-9]*) printf 'ERROR %s\n  fix: %s\n' "$where is empty in the container while the host has $outside entries: the host folder is not mounted into Kade's container" "$RECREATE" ;;
        [0-9]*/missing | [0-9]*/not_a_folder) printf 'ERROR %s\n  fix: %s\n' "$where is $outside on the host but present in the container ($inside entries): the container does not see the host's folder" "$RECREATE" ;;
        '/'*) warn "$where could not be looked at inside the container" "docker logs --tail 50 $name" ;;
        *)
          if [ "$inside" = "$outside" ]; then ok "$where: $inside entries in the container and on the host"
          else warn "$where: $inside entries in the container, $outside on the host (files being written right now explain a small difference)"
          fi ;;
      esac
    done)
  printf '%s\n' "$res"
  n=$(printf '%s\n' "$res" | grep -c '^ERROR ')
  ERRORS=$((ERRORS + n))
fi

# --- free space (Kade reports it itself when it runs) -----------------------------------------
if [ -n "$BASE_DIR" ] && [ "$RUNNING" != 1 ]; then
  at=$BASE_DIR
  while [ ! -d "$at" ] && [ "$at" != / ]; do at=$(dirname "$at"); done
  free=$(df -Pk "$at" 2>/dev/null | awk 'NR == 2 { print $4 }')
  if [ -z "$free" ]; then warn "free space of BASE_DIR \"$BASE_DIR\" unknown"
  elif [ "$free" -lt 2097152 ]; then warn "BASE_DIR \"$BASE_DIR\": $((free / 1024)) MiB free (below 2 GiB)" "df -h $at  # make room: docker system prune, or remove old backups"
  else ok "BASE_DIR \"$BASE_DIR\": $((free / 1048576)) GiB free"
  fi
fi

# --- what Kade itself sees ------------------------------------------------------------------
if [ "$RUNNING" = 1 ]; then
  user=''
  case $SVC_UID in '' | *[!0-9]*) ;; *) user="$SVC_UID${SVC_GID:+:$SVC_GID}" ;; esac
  out=$(docker exec ${user:+-u "$user"} "$CONTAINER" node dist/server/doctor/doctor-cli.js --only=engine,container,account,disk,paths,stacks,store 2>&1)
  rc=$?
  if [ $rc -gt 1 ]; then
    warn "Kade's own checks could not run (exit code $rc): $(printf '%s' "$out" | tail -n 1)" "docker exec $CONTAINER node dist/server/doctor/doctor-cli.js"
  else
    printf '%s\n' "$out"
    n=$(printf '%s\n' "$out" | grep -c '^ERROR ')
    ERRORS=$((ERRORS + n))
  fi
fi

if [ "$ERRORS" -gt 0 ]; then
  printf '%s error(s) found.\n' "$ERRORS"
  exit 1
fi
echo 'No errors found.'
exit 0
