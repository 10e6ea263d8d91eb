"""MANIFEST handling shared by the golden generators (tools/gen_goldens_*.py)."""
import os


def merge_group(out_dir, lines, group):
    """After a generator wrote one group of cases alone (--only GROUP): their
    MANIFEST lines replace those of the same cases, every other line kept."""
    path = os.path.join(out_dir, "MANIFEST")
    with open(path) as f:
        kept = [line for line in f.read().splitlines() if line]
    fresh = {line.split()[0] for line in lines}
    kept = [line for line in kept if line.startswith("#") or line.split()[0] not in fresh]
    with open(path, "w") as f:
        f.write("\n".join(kept + lines) + "\n")
    print(f"{len(lines)} cases of {group} in {out_dir}")
