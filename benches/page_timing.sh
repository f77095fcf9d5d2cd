#!/usr/bin/env bash
# Time to first contentful paint and to the end of the load event (the
# page's script has run) of each PAGE, in Debian's headless chromium over
# file://, median of RUNS (default 5) fresh loads each.
#
#   benches/page_timing.sh SITE/alloc/x/v1.html [more pages…]
set -euo pipefail
RUNS=${RUNS:-5}
CHROME=${CHROME:-chromium}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for page in "$@"; do
    abs=$(readlink -f "$page")
    cat > "$work/wrap.html" <<HTML
<!DOCTYPE html><body><iframe id="f" src="file://$abs" style="width:1400px;height:900px"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {
  var w = this.contentWindow, t = w.performance.timing;
  var fcp = w.performance.getEntriesByName('first-contentful-paint')[0];
  var out = document.createElement('pre'); out.id = 'timing';
  out.textContent = 'fcp=' + (fcp ? fcp.startTime.toFixed(0) : 'none') + ' loaded=' + (t.loadEventEnd - t.navigationStart);
  document.body.appendChild(out);
});
</script></body>
HTML
    results=()
    for _ in $(seq "$RUNS"); do
        rm -rf "$work/profile"
        line=$(timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
            --disable-background-networking --disable-component-update --disable-sync \
            --allow-file-access-from-files --user-data-dir="$work/profile" \
            --dump-dom "file://$work/wrap.html" 2>/dev/null | grep -o 'fcp=[0-9a-z]* loaded=[0-9]*' || echo "fcp=? loaded=?")
        results+=("$line")
    done
    printf '%s\n' "${results[@]}" | sort -t= -k3 -n | sed -n "$(( (RUNS + 1) / 2 ))p" | sed "s|^|$(du -k "$page" | cut -f1) KB  $page  median |"
done
