"""Every example of docs/testing.md runs, and fails when the assignor it judges is broken.

The examples are read from the page itself: a fenced code block whose first line is a comment naming a file
(``# tests/test_assignor.py``, ``// oracle_test.go``) is that file, written verbatim into a fresh folder next to
a stand-in of what the example imports (``clients/``: ``my_client.assignor``, the Go package
``example.com/mybalancer``, ``./my-assignor``, ``com.example.MyAssignor`` compiled against the stand-in of
kafka-clients' assignor API that tests/heuristics/test_java_class.py uses), and run by its own toolchain with
``assignment-oracle`` on ``PATH`` (the ``bin`` folder of the Python running these tests): Python with
``python -m pytest``, Go with ``go test``, JavaScript with ``node --test``, the Java build's script with ``sh``.
Each runs once on a correct assignor (it must pass, its JUnit report naming no failure) and once on a broken
one (every partition of a topic to its first subscriber: it must fail, writing the counterexample's files;
for Go, JavaScript and Java a test marked slow, as the shrink runs the external program at every step).
The Go and JavaScript examples also fail, never skip, without ``assignment-oracle`` on ``PATH``.

Without a toolchain (``go``, ``node``, ``java``/``javac``) its tests are skipped, except under ``CI``
(``.ci/run`` installs Node and Go): there they fail, so CI never skips an example silently.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "testing.md"
CLIENTS = Path(__file__).parent / "clients"
#: The Java stand-in of kafka-clients' assignor API (Kafka's signatures, the project's own code).
KAFKA_STANDIN = REPO / "tests" / "heuristics" / "java" / "standin"
#: Where ``assignment-oracle`` is: beside the Python that runs these tests (a virtual environment's bin).
BIN = Path(sys.executable).parent
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")
#: A first line naming the file a code block is: ``# path/name.ext`` or ``// path/name.ext``, nothing else.
MARKER = re.compile(r"(?:#|//) ([\w./-]+\.\w+)")
#: Each example file of the page, by the toolchain that runs it (a new named example is added here).
RUN_BY = {
    "tests/test_assignor.py": "python",
    "tests/test_kip49.py": "python",
    "oracle-check.sh": "java",
    "cmd/oracle-assign/main.go": "go",
    "oracle_test.go": "go",
    "oracle-assign.js": "javascript",
    "oracle.test.js": "javascript",
}
TOOLCHAINS = {"python": (), "go": ("go",), "javascript": ("node",), "java": ("java", "javac")}
#: Each toolchain's run is bounded: a hung example fails rather than stalls the suite.
TIMEOUT = 600


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(info string, body) of each fenced code block."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)


def examples() -> dict[str, str]:
    """The page's example files by name (the body after the naming line is the file, verbatim)."""
    found: dict[str, str] = {}
    for _, body in code_blocks(DOC.read_text(encoding="utf-8")):
        first = body.split("\n", 1)[0]
        match = MARKER.fullmatch(first)
        if match:
            assert match.group(1) not in found, f"docs/testing.md: two examples name {match.group(1)}"
            found[match.group(1)] = body
    return found


def needs(language: str) -> None:
    """Skip when the language's toolchain is missing, except under CI, where that is a failure."""
    missing = [tool for tool in TOOLCHAINS[language] if shutil.which(tool) is None]
    if not missing:
        return
    message = f"docs/testing.md's {language} example needs {', '.join(missing)}, not found on PATH"
    if IN_CI:
        pytest.fail(f"{message} (CI=true: never skipped; .ci/run installs it)", pytrace=False)
    pytest.skip(message)


def write_examples(folder: Path, language: str) -> None:
    for name, body in examples().items():
        if RUN_BY.get(name) == language:
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")


def environment(*, oracle: bool = True, **extra: str) -> dict[str, str]:
    """This process's environment with the oracle's bin folder first on PATH (or taken off it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_"))}
    path = [p for p in env.get("PATH", os.defpath).split(os.pathsep) if p and Path(p) != BIN]
    env["PATH"] = os.pathsep.join(([str(BIN)] if oracle else []) + path)
    env.update(extra)
    return env


def run(command: list[str], folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=folder, env=env, capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL
    )


def junit_failures(report: Path) -> tuple[int, int]:
    """(test cases, failing test cases) of a JUnit XML report."""
    cases = list(ElementTree.parse(report).getroot().iter("testcase"))
    return len(cases), sum(1 for case in cases if case.find("failure") is not None)


def assert_judged(folder: Path, junit: Path, result: subprocess.CompletedProcess, passes: bool) -> None:
    """What the example's run must show: it passed on the correct assignor (its report naming no failure);
    on the broken one it failed, the counterexample's files written and the replay command printed."""
    shown = result.stdout + result.stderr
    assert (result.returncode == 0) is passes, shown
    cases, failing = junit_failures(junit)
    assert cases >= 1, shown
    counterexamples = sorted((folder / "oracle-counterexamples").glob("*.json"))
    if passes:
        assert failing == 0, shown
        assert counterexamples == [], shown
    else:
        assert failing >= 1, shown
        assert {"scenario", "answer"} <= {f.name.split("-")[0] for f in counterexamples}, shown
        assert "assignment-oracle check " in shown, shown  # the replay command


def test_every_named_example_of_the_page_is_run_here():
    """The page's named examples are the ones this module runs (a new one is added to RUN_BY), and the oracle
    the examples call is where they look for it."""
    assert set(examples()) == set(RUN_BY)
    assert (BIN / "assignment-oracle").exists(), f"no assignment-oracle beside {sys.executable}"


CLIENT = pytest.mark.parametrize("client, passes", [("correct", True), ("broken", False)])
#: The Go, JavaScript and Java examples on the broken assignor: the battery shrinks through one external
#: process (or JVM call) per step, 20 to 40 s each at the suite's load: marked slow (CI runs them, .ci/run).
EXTERNAL_CLIENT = pytest.mark.parametrize(
    "client, passes", [("correct", True), pytest.param("broken", False, marks=pytest.mark.slow)]
)


@CLIENT
def test_the_python_example(tmp_path, client, passes):
    """The page's pytest files in a project whose ``my_client.assignor`` answers the optimum (every test
    passes) or gives each topic to its first subscriber (every test fails); ``--oracle-profile quick``."""
    project = tmp_path / "project"
    shutil.copytree(CLIENTS / "python" / client, project)
    write_examples(project, "python")
    tests = sum(len(re.findall(r"^def test_", examples()[name], re.M)) for name in RUN_BY if name.endswith(".py"))
    result = run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--oracle-profile", "quick", "tests"],
        project,
        environment(),
    )
    shown = result.stdout + result.stderr
    assert result.returncode == (0 if passes else 1), shown
    assert f"{tests} {'passed' if passes else 'failed'}" in result.stdout, shown
    if not passes:
        assert "OracleAssertionError" in shown, shown


@pytest.fixture(scope="module")
def go_cache(tmp_path_factory) -> dict[str, str]:
    """Go's build cache and module path for this module's runs; modules resolved locally only."""
    cache = tmp_path_factory.mktemp("go")
    return {
        "GOCACHE": str(cache / "build"),
        "GOPATH": str(cache / "path"),
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "0",
    }


def go_module(tmp_path: Path, client: str) -> Path:
    """The balancer's module: ``example.com/mybalancer`` (the stand-in) with the page's main and test."""
    module = tmp_path / "mybalancer"
    module.mkdir()
    (module / "go.mod").write_text("module example.com/mybalancer\n\ngo 1.19\n", encoding="utf-8")
    shutil.copy(CLIENTS / "go" / client / "mybalancer.go", module / "mybalancer.go")
    write_examples(module, "go")
    return module


@EXTERNAL_CLIENT
def test_the_go_example(tmp_path, go_cache, client, passes):
    needs("go")
    module = go_module(tmp_path, client)
    result = run(["go", "test", "-v", "-count=1", "./..."], module, environment(**go_cache))
    if passes:
        assert "--- PASS: TestAgainstTheOracle" in result.stdout, result.stdout + result.stderr
    assert_judged(module, module / "oracle-junit.xml", result, passes)


def test_the_go_example_fails_without_the_oracle(tmp_path, go_cache):
    needs("go")
    if shutil.which("assignment-oracle", path=environment(oracle=False)["PATH"]):
        pytest.skip("another assignment-oracle is on PATH besides this environment's")  # the check needs none
    module = go_module(tmp_path, "correct")
    result = run(["go", "test", "-v", "-count=1", "./..."], module, environment(oracle=False, **go_cache))
    assert result.returncode != 0
    assert "--- FAIL: TestAgainstTheOracle" in result.stdout and "assignment-oracle is not on PATH" in result.stdout


def node_project(tmp_path: Path, client: str) -> Path:
    project = tmp_path / "client"
    project.mkdir()
    shutil.copy(CLIENTS / "js" / client / "my-assignor.js", project / "my-assignor.js")
    write_examples(project, "javascript")
    return project


NODE_TEST = ["node", "--test", "--test-reporter=tap", "oracle.test.js"]


@EXTERNAL_CLIENT
def test_the_javascript_example(tmp_path, client, passes):
    needs("javascript")
    project = node_project(tmp_path, client)
    result = run(NODE_TEST, project, environment())
    assert f"# pass {1 if passes else 0}" in result.stdout, result.stdout + result.stderr
    assert_judged(project, project / "oracle-junit.xml", result, passes)


def test_the_javascript_example_fails_without_the_oracle(tmp_path):
    needs("javascript")
    if shutil.which("assignment-oracle", path=environment(oracle=False)["PATH"]):
        pytest.skip("another assignment-oracle is on PATH besides this environment's")
    result = run(NODE_TEST, node_project(tmp_path, "correct"), environment(oracle=False))
    assert result.returncode != 0
    assert "# fail 1" in result.stdout and "ENOENT" in result.stdout, result.stdout


@EXTERNAL_CLIENT
def test_the_java_builds_script(tmp_path, client, passes):
    """``oracle-check.sh BUILD_DIR`` with ORACLE_CLASSPATH holding ``com.example.MyAssignor``'s classes and
    the stand-in of kafka-clients, as the Gradle and Maven snippets call it."""
    needs("java")
    build = tmp_path / "build"
    kafka_clients, classes = tmp_path / "kafka-clients", build / "classes" / "java" / "main"
    standin = sorted(str(p) for p in KAFKA_STANDIN.rglob("*.java"))
    subprocess.run(["javac", "-nowarn", "-d", str(kafka_clients), *standin], check=True, capture_output=True)
    source = CLIENTS / "java" / client / "com" / "example" / "MyAssignor.java"
    subprocess.run(
        ["javac", "-nowarn", "-cp", str(kafka_clients), "-d", str(classes), str(source)],
        check=True,
        capture_output=True,
    )
    write_examples(tmp_path, "java")
    env = environment(ORACLE_CLASSPATH=f"{classes}{os.pathsep}{kafka_clients}", XDG_CACHE_HOME=str(tmp_path / "cache"))
    result = run(["sh", "oracle-check.sh", "build"], tmp_path, env)
    assert_judged(build, build / "test-results" / "oracle" / "TEST-oracle.xml", result, passes)


def test_the_gradle_and_maven_snippets_only_call_the_tested_script():
    """Not run here (they need Maven Central): each calls ``oracle-check.sh`` with the build folder and sets
    ORACLE_CLASSPATH, and none runs ``assignment-oracle`` itself."""
    section = DOC.read_text(encoding="utf-8").split("## Java, with Gradle or Maven\n", 1)[1].split("\n## ", 1)[0]
    blocks = dict(code_blocks(section))
    gradle, maven = blocks["kotlin"], blocks["xml"]
    assert 'commandLine("sh", "oracle-check.sh", layout.buildDirectory' in gradle
    assert 'environment("ORACLE_CLASSPATH", sourceSets["main"].runtimeClasspath.asPath)' in gradle
    assert "<argument>oracle-check.sh</argument><argument>${project.build.directory}</argument>" in maven
    assert "<ORACLE_CLASSPATH>${project.build.outputDirectory}:${oracle.classpath}</ORACLE_CLASSPATH>" in maven
    assert "assignment-oracle" not in gradle + maven
