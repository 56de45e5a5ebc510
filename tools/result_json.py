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
