#!/usr/bin/env bash
# Make the release tag the README's snippets pin: "v" + the version the checked-out commit declares
# (deckcheck/version.py), annotated, pushed to the remote. Idempotent: a tag that exists already on
# the remote is left alone (exit 0), so the release workflow can run on every push to main.
#   usage: scripts/release_tag.sh [REMOTE]     (default: origin)
set -euo pipefail
remote=${1:-origin}
root=$(git rev-parse --show-toplevel)
version=$(sed -n 's/^__version__ = "\([^"]*\)"$/\1/p' "$root/deckcheck/version.py")
if [ -z "$version" ]; then
  echo "release_tag: no __version__ = \"...\" line in deckcheck/version.py" >&2
  exit 1
fi
tag="v$version"
if git ls-remote --exit-code --tags "$remote" "refs/tags/$tag" >/dev/null; then
  echo "release_tag: $tag exists on $remote; nothing to do"
  exit 0
fi
git -c user.name="${GIT_AUTHOR_NAME:-deckcheck release}" -c user.email="${GIT_AUTHOR_EMAIL:-release@deckcheck.invalid}" \
  tag -a "$tag" -m "deckcheck $version"
git push "$remote" "refs/tags/$tag"
echo "release_tag: tagged $(git rev-parse --short HEAD) as $tag and pushed it to $remote"
