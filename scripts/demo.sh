#!/bin/sh
# PLACEHOLDER: replaced by the demo's owner.
set -eu
exec build/rel/tmasim demo
