"""Cases for the mutants of this round's generators (docs/mutation.md, fifth round): tools/gen_nvidia_smi_messages.py
read from a .deb (its ELF reader, the --query-gpu table in .data, the failure strings), which no test reached
(the tests regenerate from the slice): a small .deb is built here in the formats the generator reads (deb(5): an
ar archive of control.tar.xz and data.tar.xz; the System V gABI's ELF64 header and section headers; one record
of nine 8-byte words per field, plain addresses into .rodata), holding the slice's strings and fields, and must
give the slice's sites."""

import io
import json
import os
import re
import struct
import subprocess
import sys
import tarfile
import lzma
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_nvidia_smi_messages as smi  # noqa: E402
import knowgen  # noqa: E402

SMI_SLICE = os.path.join(ROOT, "tools", "data", "nvidia_smi_messages_slice.txt")
RO, DATA = 0x400000, 0x600000  # where .rodata and .data are mapped (addresses, not file offsets)


def _elf(strings_of_records, messages, lead=3, tail_words=(0,)):
    """An ELF64 little-endian file: .rodata (the strings), .data (``lead`` words of other data, then the
    records: each [name, alt, 0 x5, function, help] with addresses of .rodata), .shstrtab."""
    ro = bytearray()  # a string at .rodata's first byte
    where = {}

    def addr(s):
        if s not in where:
            where[s] = RO + len(ro)
            ro.extend((s if isinstance(s, bytes) else s.encode("ascii")) + b"\0")
        return where[s]

    for m in messages:  # each where it is, a repeat too
        ro.extend(m.encode("ascii") + b"\0")
    words = [0x1234] * lead
    for name, alt, func, help_ in strings_of_records:
        words += [addr(name), addr(alt) if alt else 0, addr("units"), 0, 0, 0, 0, func, addr(help_)]
    words += list(tail_words)
    data = struct.pack("<%dQ" % len(words), *words)
    shstr = b"\0.rodata\0.data\0.shstrtab\0"
    body_off = 64
    ro_off, data_off = body_off, body_off + len(ro)
    sh_off_str = data_off + len(data)
    shoff = sh_off_str + len(shstr)
    shoff += (-shoff) % 8

    def sh(name, addr_, off, size):
        return struct.pack("<IIQQQQIIQQ", name, 1, 0, addr_, off, size, 0, 0, 1, 0)

    heads = sh(0, 0, 0, 0) + sh(1, RO, ro_off, len(ro)) + sh(9, DATA, data_off, len(data)) + \
        sh(15, 0, sh_off_str, len(shstr))
    head = bytearray(64)
    head[:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", head, 0x28, shoff)
    struct.pack_into("<HHH", head, 0x3a, 64, 4, 3)
    out = bytes(head) + bytes(ro) + data + shstr
    return out + b"\0" * (shoff - len(out)) + heads


def _txz(files):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name, blob in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            t.addfile(info, io.BytesIO(blob))
    return lzma.compress(raw.getvalue())


def _deb(path, binary, version="535.261.03-1", odd=b"x"):
    members = [("debian-binary", b"2.0\n"), ("_odd", b"abc"), ("control.tar.xz", _txz({"./control": (
        "Package: nvidia-smi\nVersion: %s\nArchitecture: amd64\n" % version).encode()})),
        ("data.tar.xz", _txz({"./usr/share/doc/x": odd, smi.BINARY: binary}))]
    out = bytearray(b"!<arch>\n")
    for name, blob in members:
        out += ("%-16s%-12s%-6s%-6s%-8s%-10d`\n" % (name + "/", 0, 0, 0, 100644, len(blob))).encode()
        out += blob + (b"\n" if len(blob) & 1 else b"")
    with open(path, "wb") as f:
        f.write(bytes(out))
    return path


def _records(fields):
    """The table's records: a heading (function 0) after the first two, then every field with its help."""
    recs = []
    for i, (name, alt) in enumerate(fields):
        recs.append((name, alt, 0x800000 + i, "help of %s: the field is not supported on some GPUs" % name if i != 2
                     else b"help with a byte \xe9 that is not ASCII"))
        if i == 1:
            recs.append(("clocks", "", 0, "Section about clocks"))
    return recs


@pytest.fixture(scope="module")
def slice_doc(tmp_path_factory):
    return knowgen.regenerated(smi.main, SMI_SLICE, tmp_path_factory.mktemp("s") / "nvidia_smi_messages.json")


def _fields():
    _, fields, _ = smi.from_slice(SMI_SLICE)
    return fields + [("extra.f%d" % i, "") for i in range(10)]  # 50: the table must have that many


def test_a_deb_gives_the_slices_sites_and_its_table(tmp_path, slice_doc, capsys):
    messages, _, _ = smi.from_slice(SMI_SLICE)
    fields = _fields()
    # an indented string, one of 7 characters (strings -n 8), a repeat, one without a failure's words
    others = ["  Unable to indented", "\tUnable to tabbed", "Error x", "Error xy", "Unable to x",
              "Failed to do the thing twice", "Failed to do the thing twice", "ok words only here"]
    binary = _elf(_records(fields), messages + others)
    deb = _deb(tmp_path / "nvidia-smi.deb", binary)
    got_m, got_f, version = smi.from_deb(str(deb))
    assert got_m == messages + ["Error xy", "Unable to x", "Failed to do the thing twice"]
    assert got_f == fields
    assert version == "nvidia-smi 535.261.03-1 (Debian bookworm non-free, /usr/lib/nvidia/current/nvidia-smi)"
    out = tmp_path / "out.json"
    # main --deb checks the fix table against the binary's sites: the slice's strings lack four of them
    deb2 = _deb(tmp_path / "nvidia-smi2.deb", _elf(_records(fields), messages))
    with pytest.raises(SystemExit) as e:
        smi.main(["--deb", str(deb2), "-o", str(out)])
    assert e.value.code == 2 and not out.exists()
    assert "MSG_FIX entries match no assigned site of this binary: ^Unable to communicate with GPU %s" in \
        capsys.readouterr().err
    # with them (the committed table's texts), the slice's sites first, the four after, as the committed table has them
    full = {x["text"]: x for x in knowgen.committed("nvidia_smi_messages")["sites"]}
    four = [next(t for t in full if re.search(r, t) and full[t].get("fix")) for r in (
        r"^Unable to communicate with GPU", r"^GPU Reset couldn't run", r"^Specified clock combination", r"instace")]
    assert len(four) == 4
    deb3 = _deb(tmp_path / "nvidia-smi3.deb", _elf(_records(fields), messages + four), odd=b"")
    assert smi.main(["--deb", str(deb3), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["sites"][:len(messages)] == slice_doc["sites"]
    assert [{k: v for k, v in x.items() if k not in ("id", "where")} for x in doc["sites"][len(messages):]] == \
        [{k: v for k, v in full[t].items() if k not in ("id", "where")} for t in four]
    assert [x["where"] for x in doc["sites"][len(messages):]] == \
        ["string %d" % n for n in range(len(messages) + 1, len(messages) + 5)]
    assert doc["header"] == slice_doc["header"]
    assert doc["query_fields"] == [{"name": n, "alt": a} if a else {"name": n} for n, a in fields]


def test_the_readers_refuse_what_is_not_their_layout(tmp_path):
    fields = _fields()
    good = _elf(_records(fields), [])
    for bad in (b"\x7fELG" + good[4:], good[:4] + b"\x01" + good[5:], good[:5] + b"\x02" + good[6:]):
        with pytest.raises(ValueError, match="^not a 64-bit little-endian ELF file$"):
            smi.elf_sections(bad)
    assert sorted(smi.elf_sections(good)) == ["", ".data", ".rodata", ".shstrtab"]
    assert smi.elf_sections(good)[".rodata"][0] == RO and smi.elf_sections(good)[".data"][:1] == (DATA,)
    # 49 fields: not the table; no 'timestamp' record followed by 'driver_version'; the table at the very start
    with pytest.raises(ValueError, match="^the --query-gpu table has 49 fields: not the layout this generator reads$"):
        smi.query_fields(_elf(_records(fields[:49]), []))
    swapped = [fields[1], fields[0]] + fields[2:]
    with pytest.raises(ValueError, match=r"^no --query-gpu table \(a record 'timestamp' then 'driver_version'\) in "
                                         r"\.data$"):
        smi.query_fields(_elf(_records(swapped), []))
    # the table's first two records as the last words of .data (and one more word): found, then too short
    with pytest.raises(ValueError, match="^the --query-gpu table has 2 fields"):
        smi.query_fields(_elf(_records(fields[:2])[:2], [], lead=5, tail_words=(0,)))
    got, strs = smi.query_fields(_elf(_records(fields), [], lead=0, tail_words=()))
    assert got == fields and "Section about clocks" in strs and "timestamp" in strs and "" not in strs
    deb = tmp_path / "x.deb"
    deb.write_bytes(b"!<arch>")
    with pytest.raises(ValueError, match="^%s: not a .deb \\(ar\\) archive$" % re.escape(str(deb))):
        smi.from_deb(str(deb))


# ------------------------------------------------------------------ Apptainer's and UCC's repository, Ray's wheel

import gen_apptainer_messages as apptainer  # noqa: E402
import gen_ray_messages as ray  # noqa: E402
import gen_ucc_messages as ucc  # noqa: E402


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c",
                           "commit.gpgsign=false"] + list(args), check=True, capture_output=True, text=True).stdout


def _slice_files(name):
    return knowgen.read_slice(os.path.join(ROOT, "tools", "data", name + "_slice.txt"))


def _merged(files):
    """[(path, text)] with a slice's sections of one file laid over each other at their line numbers."""
    by = {}
    for path, text in files:
        lines = by.setdefault(path, [])
        for i, line in enumerate(text.split("\n")):
            lines.extend([""] * (i + 1 - len(lines)))
            lines[i] = line or lines[i]
    return [(p, "\n".join(lines)) for p, lines in by.items()]


def _repo(tmp_path, files):
    repo = tmp_path / "up.git"
    repo.mkdir()
    _git(repo, "init", "-q")
    for path, text in _merged(files):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "x")
    return str(repo)


EXTRA_SITES = {
    "apptainer_messages": [("cmd/apptainer/x.go:2", "a message of cmd is read as well %s", "fatal"),
                           ("internal/pkg/util/gpu/owned.go:1", "nvidia-container-cli is not owned by root user",
                            "error-value"),
                           ("pkg/y/y.go:1", "a message of pkg is read as well %d", "warning")],
    "ucc_messages": [("src/components/tl/x.c:2", "a later message of this file %d", "error"),
                     ("src/components/tl/x.c:4", "and one after a call without a literal %d", "error"),
                     ("src/components/tl/x.c:5", "team %p: %s and %s %lu end", "error"),
                     ("src/components/tl/x.c:6", "a fatal message of ucc %d", "fatal"),
                     ("src/components/tl/x.c:7", "a warning of a tl %d", "warn")],
}


@pytest.mark.parametrize("gen,name,extra", [
    (apptainer, "apptainer_messages", [
        ("internal/pkg/x_test.go", 'sylog.Fatalf("a test file is not read at all")\n'),
        ("internal/pkg/testdata/y.go", 'sylog.Fatalf("test data is not read at all")\n'),
        ("internal/pkg/test/z.go", 'sylog.Fatalf("the test helpers are not read")\n'),
        ("docs/w.go", 'sylog.Fatalf("a folder outside cmd, internal, pkg")\n'),
        ("cmd/v.txt", 'sylog.Fatalf("not a Go file is not read")\n'),
        # the committed table's site the slice leaves out (its fix row must find it); cmd/ and pkg/ are read too
        ("internal/pkg/util/gpu/owned.go", 'var e = errors.New("nvidia-container-cli is not owned by root user")\n'),
        ("cmd/apptainer/x.go", '\n\tsylog.Fatalf("a message of cmd is read as well %s", x)\n'),
        ("pkg/y/y.go", 'sylog.Warningf("a message of pkg is read as well %d", 1)\n')]),
    (ucc, "ucc_messages", [
        ("src/test/x.c", 'ucc_error("a test file is not read at all %d", 1);\n'),
        ("test/y.c", 'ucc_error("outside src is not read at all %d", 1);\n'),
        ("src/z.py", 'ucc_error("not a C file is not read at all %d", 1);\n'),
        # a call without its format first, a format of macros, the other levels: read
        ("src/components/tl/x.c", 'tl_error(lib);\nucc_error("a later message of this file %d", 1);\nucc_error(FMT_VAR);\n'
         'ucc_error("and one after a call without a literal %d", 2);\n'
         'ucc_error("team %p: " UCC_STATUS_FMT " and " UCS_PTR_FMT " %" PRIu64 " end", a, b, c, d);\n'
         'ucc_fatal("a fatal message of ucc %d", 1);\ntl_warn(lib, "a warning of a tl %d", 1);\n')]),
])
def test_the_repository_gives_the_slices_sites(gen, name, extra, tmp_path, capsys):
    sliced, _ = _slice_files(name)
    repo = _repo(tmp_path, sliced + extra)
    files, version = gen.from_repo(repo, "HEAD")
    read = [x for x in extra if x[0] in ("internal/pkg/util/gpu/owned.go", "cmd/apptainer/x.go", "pkg/y/y.go",
                                         "src/components/tl/x.c")]
    assert files == sorted(_merged(sliced + read))
    assert version == "untagged (commit %s)" % _git(repo, "rev-parse", "HEAD").strip()
    _git(repo, "tag", "v9")
    out = tmp_path / "out.json"
    assert gen.main(["--repo", repo, "--rev", "v9", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    want = gen.build(files, "v9 (commit %s)" % _git(repo, "rev-parse", "HEAD").strip())
    assert doc["header"] == want["header"]
    assert [{k: v for k, v in x.items() if k != "needles"} for x in doc["sites"]] == json.loads(json.dumps(want["sites"]))
    extra_sites = [(x["where"], x["text"], x["level"]) for x in doc["sites"] if x["where"].split(":")[0] in dict(read)]
    assert extra_sites == EXTRA_SITES[name]
    # the slice's sites, in the repository's file order
    sites = knowgen.regenerated(gen.main, os.path.join(ROOT, "tools", "data", name + "_slice.txt"), tmp_path / "s.json")["sites"]
    assert sorted((x for x in doc["sites"] if x["where"].split(":")[0] not in dict(read)), key=lambda x: x["id"]) == \
        sorted(sites, key=lambda x: x["id"])
    # the fix table is checked against the repository's sites: without them, exit 2
    empty = tmp_path / "empty"
    empty.mkdir()
    repo2 = _repo(empty, [(sliced[0][0], "\n")])
    with pytest.raises(SystemExit) as e:
        gen.main(["--repo", repo2, "-o", str(tmp_path / "none.json")])
    assert e.value.code == 2 and "MSG_FIX entries match no assigned site of this revision" in capsys.readouterr().err


_RAY_EXTRA = [
    ("ray/_private/utils.py", "def connect(address):\n    raise ConnectionError(\n        f\"Unable to connect to GCS (ray "
     "head) at {address}. Check that (1) Ray with matching version started successfully at the specified address, (2) "
     "this node can reach the specified address, and (3) there is no firewall setting preventing access.\"\n    )\n\n\n"
     "def check(a, b):\n    mismatch_msg = \"The cluster was started with:\\n    Ray: \" + a\n"
     "    error_message = f\"Version mismatch: {mismatch_msg}\"\n    raise RuntimeError(error_message)\n"),
    # an upper-case constant's name, a literal '%' and fields of no constant in an f-string, a byte that is not UTF-8
    ("ray/_private/node.py", 'TIMEOUT_ERROR_MESSAGE = "the wait for the cluster timed out after the deadline \xff"\n'
     'def f(name, x):\n    usage_error_msg = f"usage at 100% of {name} by {x.y} and {other_msg}"\n'
     'other_msg = "the other words"\n'),
    ("ray/train/v2/_internal/execution/worker_group/worker_group.py",
     "def start():\n    raise InsufficientClusterResourcesError(\n        \"Insufficient cluster resources to launch training "
     "workers.\"\n    )\n"),
]


def test_the_wheel_gives_the_slices_sites(tmp_path, capsys):
    sliced, version = _slice_files("ray_messages")
    paths = [p for p, _ in sliced]
    alone = [(p, t) for p, t in sliced if paths.count(p) == 1 and p not in dict(_RAY_EXTRA)]
    assert len(alone) == 4  # services.py, scripts.py, backend_executor.py; autoscaler.py (placement16)
    wheel = tmp_path / "ray-2.60.0-cp311-cp311-manylinux2014_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("ray-2.60.0.dist-info/RECORD", "x")
        z.writestr("ray-2.60.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: ray\nVersion: 2.60.0\n")
        z.writestr("ray/_private/other.py", 'raise RuntimeError("a file the generator does not read at all")\n')
        for path, text in reversed(alone + _RAY_EXTRA):
            z.writestr(path, text.encode("utf-8").replace(b"\xc3\xbf", b"\xff"))
    files, got_version = ray.from_wheel(str(wheel))
    assert files == sorted((p, t.replace("\xff", "\ufffd")) for p, t in alone + _RAY_EXTRA) and got_version == version
    out = tmp_path / "out.json"
    assert ray.main(["--wheel", str(wheel), "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [{k: v for k, v in x.items() if k != "needles"} for x in doc["sites"]] == \
        json.loads(json.dumps(ray.build(files, version)["sites"]))
    sl = knowgen.regenerated(ray.main, os.path.join(ROOT, "tools", "data", "ray_messages_slice.txt"), tmp_path / "s.json")
    assert doc["header"] == sl["header"]
    # the sites of the slice's files read whole are the slice's; the three of the fix table as the committed table has them
    got = {x["text"]: x for x in doc["sites"]}
    for x in sl["sites"]:
        if x["where"].split(":")[0] in dict(alone):
            assert got[x["text"]] == x
    assert [(x["where"], x["text"]) for x in doc["sites"] if x["where"].startswith("ray/_private/node.py")] == [
        ("ray/_private/node.py:1", "the wait for the cluster timed out after the deadline \ufffd"),
        ("ray/_private/node.py:4", "the other words"),
        ("ray/_private/node.py:3", "usage at 100%% of %s by %s and the other words")]
    full = {x["text"]: x for x in knowgen.committed("ray_messages")["sites"]}
    three = [t for t in got if t.startswith(("Unable to connect to GCS", "Version mismatch", "Insufficient cluster"))]
    assert len(three) == 3 and all((got[t]["family"], got[t]["fix"]) == (full[t]["family"], full[t]["fix"]) for t in three)
    small = tmp_path / "ray-1.0-py3-none-any.whl"
    with zipfile.ZipFile(small, "w") as z:
        z.writestr("ray-1.0.dist-info/METADATA", "Version: 1.0\n")
        z.writestr(sliced[0][0], "\n")
    with pytest.raises(SystemExit) as e:
        ray.main(["--wheel", str(small), "-o", str(tmp_path / "none.json")])
    assert e.value.code == 2 and "MSG_FIX entries match no assigned site of this wheel" in capsys.readouterr().err


@pytest.mark.parametrize("gen,name,keep", [(smi, "nvidia_smi_messages", ("id", "where")), (apptainer, "apptainer_messages", ()),
                                           (ray, "ray_messages", ()), (ucc, "ucc_messages", ())])
def test_the_slice_gives_the_committed_header_and_sites(gen, name, keep, tmp_path):
    # the header (source, generator, note, version) and every site of the slice field by field as committed, ids
    # too (a place's slug), but nvidia-smi's: its ids and places follow the order of the whole binary's strings
    got = knowgen.regenerated(gen.main, os.path.join(ROOT, "tools", "data", name + "_slice.txt"), tmp_path / "x.json")
    full = knowgen.committed(name)
    # the date is the day it is regenerated (the committed file's is the day it was made)
    assert {k: v for k, v in got["header"].items() if k != "date"} == \
        {k: v for k, v in full["header"].items() if k != "date"}
    by_text = {s["text"]: s for s in full["sites"]}
    assert len(got["sites"]) == len({s["text"] for s in got["sites"]}) >= 8
    for s in got["sites"]:
        assert {k: v for k, v in s.items() if k not in keep} == {k: v for k, v in by_text[s["text"]].items()
                                                                 if k not in keep}
    assert got["unassigned"] == sorted(s["id"] for s in got["sites"] if not s.get("family"))


@pytest.mark.parametrize("gen,name", [(smi, "nvidia_smi_messages"), (apptainer, "apptainer_messages"),
                                      (ray, "ray_messages"), (ucc, "ucc_messages")])
def test_main_writes_the_generated_file_by_default(gen, name, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(knowgen, "OUT_DIR", str(tmp_path))
    assert gen.main(["--slice", os.path.join(ROOT, "tools", "data", name + "_slice.txt")]) == 0
    assert os.listdir(str(tmp_path)) == [name + ".json"]
    assert capsys.readouterr().out.startswith(os.path.join(str(tmp_path), name + ".json") + ": ")


@pytest.mark.parametrize("src,want", [
    ('`raw %v text`)', 'raw %s text'), ('"a %d" +\n\t`b %q`)', 'a %db %s'), ('`unterminated', None),
    ('"unterminated', None), ('', None), ('   ', None), ('x)', None), ('"100%% done %t"', '100%% done %s'),
    ('"a" + x', 'a'), ('"a"+"b"', 'ab'), ('"x\\ty"', 'x\ty'), (' \t\r\n"lead"', 'lead'), ('"a" \n+ \n"b" +', 'ab'),
    ('`a` + `b`', 'ab'), ('"a" + `b', None),
])
def test_go_format(src, want):
    # Go's interpreted and raw string literals joined by '+' (The Go Programming Language Specification, "String
    # literals"), %v-family verbs read as %s, '%%' kept
    assert knowgen.go_format(src, 0) == want
    assert knowgen.go_format("f(" + src, 2) == want
