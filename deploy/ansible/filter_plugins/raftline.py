"""Filters of the Raftline playbooks: render the server-<role>.properties templates and read CLI output."""

import re

from ansible.errors import AnsibleFilterError

_PLACEHOLDER = re.compile(r"@([A-Z_]+)@")


def raftline_render(text, values):
    """Fills every @NAME@ of a template from values; a line whose placeholder is empty or None is left out.

    Comment lines are kept as they are. A placeholder with no entry in values is an error, so a template
    and the tooling cannot drift apart."""
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            out.append(line)
            continue
        names = _PLACEHOLDER.findall(line)
        missing = [n for n in names if n not in values]
        if missing:
            raise AnsibleFilterError("raftline_render: no value for %s in line: %s" % (", ".join(missing), line))
        if any(values[n] is None or str(values[n]) == "" for n in names):
            continue
        out.append(_PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), line))
    return "\n".join(out) + "\n"


def raftline_not_in_isr(describe, node_id):
    """From `topics describe --output json`: the partitions that list node_id as a replica but not in the ISR."""
    node_id = int(node_id)
    missing = []
    for topic in describe.get("topics", []):
        for p in topic.get("partitions", []):
            if node_id in p.get("replicas", []) and node_id not in p.get("isr", []):
                missing.append("%s-%s" % (topic["topic"], p["partition"]))
    return missing


def raftline_leaderless(describe):
    """From `topics describe --output json`: the partitions without a leader."""
    return ["%s-%s" % (t["topic"], p["partition"]) for t in describe.get("topics", [])
            for p in t.get("partitions", []) if p.get("leader", -1) == -1]


class FilterModule(object):
    def filters(self):
        return {
            "raftline_render": raftline_render,
            "raftline_not_in_isr": raftline_not_in_isr,
            "raftline_leaderless": raftline_leaderless,
        }
