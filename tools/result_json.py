"""Reading a `pagesim run --out DIR` result.json from the tools (standard library only)."""
import json
import sys


def load(path):
    """The document, or exit 2 naming the file when it cannot be read or parsed."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: {e}", file=sys.stderr)
        sys.exit(2)


def cpus_per_node(doc):
    """The scenario's machine.cpus_per_node, 0 when it does not say (an explicit node list)."""
    cpn = doc.get("scenario", {}).get("machine", {}).get("cpus_per_node", 0)
    return cpn if isinstance(cpn, int) and cpn > 0 else 0


def gnuplot(lines, tool):
    """Runs gnuplot on `lines` (its script, inline data included; a multiplot is closed
    here), or exits naming `tool`."""
    import subprocess
    if any(line.startswith("set multiplot") for line in lines):
        lines = lines + ["unset multiplot"]
    try:
        subprocess.run(["gnuplot"], input="\n".join(lines) + "\n", text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"{tool}: gnuplot failed ({e}); no plot written")
