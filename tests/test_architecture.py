"""The shape of the code, enforced: rooms depend downwards only, no import loop (not even one
hidden in a function), core knows nothing of Streamlit, pages and ui reach core through its
operations and model types, heavy libraries load lazily; the repository's folders import each
other one way (tests and benches share fakes/ and corpora/, never each other); browser tests
carry the e2e marker, tests share helpers through modules meant for it, and no import of this
repository hides behind ``except ImportError``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Lowest first. A module may import modules of its own room or of rooms listed before it.
ROOMS = [
    ["core.config", "core.endpoint", "core.errors", "core.files", "core.http", "core.progress",
     "core.text", "core.tokens"],
    ["core.documents", "core.embeddings"],
    ["core.chunking", "core.library"],
    ["core.store", "core.evaluation", "core.prompts"],
    ["core.retrieval"],
    ["core.assembly"],
    ["core.llm"],
    ["core.operations"],
    ["core.cli", "core.__main__", "core"],
    ["ui"],
    ["pages", "app"],
]
HEAVY = ("chromadb", "docling", "onnxruntime", "onnx", "tokenizers", "torch", "pdfplumber",
         "streamlit", "pandas", "plotly", "optuna", "sqlalchemy", "tokie", "fontTools")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    files = [*ROOT.glob("core/**/*.py"), *ROOT.glob("ui/**/*.py"), *ROOT.glob("pages/*.py"),
             ROOT / "app.py"]
    return {_module_name(p): p for p in files}


SOURCES = _sources()


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(first-party module imported, whether the import sits inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                names = [child.module] + [f"{child.module}.{a.name}" for a in child.names]
            for name in names:
                if name.split(".")[0] in ("core", "ui", "pages", "app"):
                    found.append((_resolve(name), in_function))
            visit(child, inner)

    visit(tree, False)
    return found


def _resolve(name: str) -> str:
    """The module a dotted import name refers to (``core.x.Name`` → ``core.x``)."""
    while name not in SOURCES and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _room(module: str) -> int:
    best, level = -1, -1
    for index, room in enumerate(ROOMS):
        for prefix in room:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), index
    assert level >= 0, f"{module} belongs to no room of ROOMS"
    return level


GRAPH = {module: sorted({m for m, _ in _imports(path)} - {module})
         for module, path in SOURCES.items()}


def test_every_module_has_a_room():
    for module in SOURCES:
        _room(module)


def test_rooms_depend_downwards_only():
    upward = [f"{module} imports {target}" for module, targets in GRAPH.items()
              for target in targets if _room(target) > _room(module)]
    assert upward == []


def test_no_import_loop_between_modules():
    # Tarjan's strongly connected components: any component of two or more is a loop.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in GRAPH.get(node, []):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for module in GRAPH:
        if module not in index:
            connect(module)
    assert loops == []


def test_no_first_party_import_hides_in_a_function():
    hidden = [f"{module} imports {target} inside a function"
              for module, path in SOURCES.items() if module.startswith(("core", "ui"))
              for target, in_function in _imports(path) if in_function]
    assert hidden == []


def test_core_knows_nothing_of_streamlit_or_the_pages():
    for module, path in SOURCES.items():
        if not module.startswith("core"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""])
                assert not any(n.split(".")[0] in ("streamlit", "ui", "pages") for n in names), \
                    module


# Pages and ui/ call core through its operations and read its model types: a page that reaches
# further in (a ranking function, an LLM phase, the store) holds a rule core should own.
MODEL_TYPES = {
    "core.documents.model": "the Document and its parts, which every page shows",
    "core.chunking.chunk": "the Chunk, with its exact span and the names of its boundary types",
    "core.errors": "typed errors carry the one sentence a page shows",
    "core.progress": "progress and cancellation: the signature of every long operation",
    "core.llm.settings": "the typed LLM connection settings a form edits",
    "core.endpoint": "the typed endpoint settings (EndpointSettings) every endpoint form edits: "
                     "the base of the LLM's, the embedder's and the reranker's",
    "core.retrieval.rerank_settings": "the typed reranking endpoint settings a form edits",
    "core.documents.sniff": "what an upload may be (its extensions and size), which the upload "
                            "widget states",
    "core.retrieval.modes": "how a question may retrieve (the rankings, autocut's default), "
                            "which the retrieval pickers offer",
    "core.llm.log": "the log of the model's raw responses (ResponseLog), which Structure lists "
                    "for inspection",
    "core.embeddings.settings": "the typed embedding endpoint settings a form edits, and the "
                                "embedders a user may choose (MiniLM, the configured endpoint)",
    "core.embeddings.identity": "which embedder made a vector (EmbedderRef), named on screen",
    "core.store.info": "what a chunk set is (ChunkSetInfo), listed on screen",
    "core.evaluation.questions": "the question set a page picks and shows",
    "core.llm.run": "what an LLM chunking run produced (LLMRun, RunWarning), which the "
                    "Structure and Compare pages show",
    "core.assembly.citations": "which citation markers an answer is read for (MARKERS_READ, "
                               "CitationCheck), which the answer views name",
    "core.chunking.checks": "a chunking's integrity report (IntegrityReport, Place, the checks' "
                            "labels), which Compare and Evaluate show",
    "core.chunking.edits": "hand edits (Split, Merge, MoveBoundary, EditedConfig), which the "
                           "edit panel builds and keeps",
    "core.evaluation.metrics": "the metrics a result carries (names, labels, Aggregate), which "
                               "every evaluation view shows",
    "core.prompts.rag_fields": "the answer prompt's fields (RagField) read from and written into "
                               "its JSON: what the answer-prompt form edits",
    "core.assembly.model": "the assembled prompt (AssembledPrompt, its Citations and Budget, the "
                           "styles and estimators to choose, where a source is), which Assemble "
                           "shows and exports",
    "core.retrieval.pack": "a retrieved passage (Pack: its spans, score and pages), which Assemble "
                           "shows in its document",
    "core.prompts.template": "a prompt template (PromptTemplate: its text, version, placeholders "
                             "and answer format), which the Prompts page edits and shows",
    "core.llm.trial": "what a template is tried on (PhaseInput, Conversation) and what a trial "
                      "shows (PhaseView), which the Prompts page's input widgets build",
}
SESSION_HOLDERS = {
    "ui.resources": "the one place that holds core's resources for a session (store, library, "
                    "embedder, prompt library)",
    "ui.persist": "the one writer of a user's inputs into the data folder",
}
def _reach_ins() -> set[str]:
    """Every import of core by a page or ui/ that is neither an operation nor a model type."""
    return {f"{module} -> {target}" for module, targets in GRAPH.items()
            if module.startswith(("pages", "ui", "app")) and module not in SESSION_HOLDERS
            for target in targets if target.split(".")[0] == "core"
            and not target.startswith("core.operations") and target not in MODEL_TYPES}


def test_pages_and_ui_reach_core_through_operations_and_model_types():
    assert sorted(_reach_ins()) == [], \
        "call an operation of core.operations (or read a model type) instead"


def test_every_model_type_and_session_holder_is_a_module_still_read():
    read = {target for module, targets in GRAPH.items()
            if module.startswith(("pages", "ui", "app")) for target in targets}
    stale = sorted(m for m in (*MODEL_TYPES, *SESSION_HOLDERS) if m not in read)
    assert stale == [], "no page or ui module reads it: take it off the list"


@pytest.mark.parametrize("entry", ["core.cli", "core.operations.assemble.run",
                                   "core.operations.evaluation", "core.operations.ingest.run",
                                   "core.operations.tune.run"])
def test_heavy_libraries_load_only_when_used(entry):
    code = (f"import sys, {entry}; "
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=True).stdout.strip()
    assert loaded == ""


# --------------------------------------------------------------------------------------------
# Habits of the test suite and of the repository as a whole
# --------------------------------------------------------------------------------------------

FOLDERS = ("core", "ui", "pages", "tests", "sample_docs", "bench", "fakes", "corpora")
FIRST_PARTY = (*FOLDERS, "app")
PYTHON_FILES = [ROOT / "app.py", *(p for folder in FOLDERS
                                   for p in sorted((ROOT / folder).rglob("*.py")))]


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _imported_modules(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        return [node.module]
    return []


# Which top-level folders each may import: product code (core, ui, pages, app) never imports a
# test, a bench or what they share; tests and benches share fakes/ and corpora/, never each other.
PRODUCT = {"core", "ui", "pages", "app"}
SHARED = {"fakes", "corpora", "sample_docs"}
MAY_IMPORT = {
    "core": {"core"}, "ui": {"core", "ui"}, "pages": {"core", "ui", "pages"},
    "app": {"core", "ui", "pages"},
    "sample_docs": {"core", "sample_docs"},
    "corpora": {"core", "corpora", "sample_docs"},
    "fakes": {"core", "fakes", "corpora", "sample_docs"},
    "tests": PRODUCT | SHARED | {"tests"},
    "bench": PRODUCT | SHARED | {"bench"},
}


def test_the_folders_import_each_other_one_way():
    wrong = []
    for path in PYTHON_FILES:
        folder = path.relative_to(ROOT).parts[0].removesuffix(".py")
        for node in ast.walk(_tree(path)):
            wrong += [f"{path.relative_to(ROOT)} imports {module}"
                      for module in _imported_modules(node)
                      if module.split(".")[0] in MAY_IMPORT
                      and module.split(".")[0] not in MAY_IMPORT[folder]]
    assert wrong == []


def test_every_browser_test_module_carries_the_e2e_marker():
    modules = sorted((ROOT / "tests" / "e2e").glob("test_*.py"))
    assert modules
    unmarked = []
    for path in modules:
        marks = [ast.unparse(node.value) for node in _tree(path).body
                 if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)]
        if not any("pytest.mark.e2e" in mark for mark in marks):
            unmarked.append(path.name)
    assert unmarked == [], "add `pytestmark = pytest.mark.e2e` to these browser tests"


def test_tests_share_helpers_only_through_modules_meant_for_it():
    """A test module imports neither another test module nor anyone's private (``_name``)."""
    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(_tree(path)):
            for module in _imported_modules(node):
                if not module.startswith("tests."):
                    continue
                if module.rsplit(".", 1)[-1].startswith("test_"):
                    wrong.append(f"{path.name} imports the test module {module}")
                if isinstance(node, ast.ImportFrom):
                    wrong += [f"{path.name} imports {module}.{alias.name}"
                              for alias in node.names if alias.name.startswith("_")]
    assert wrong == []


def test_no_import_error_guard_around_modules_of_this_repository():
    guarded = []
    for path in PYTHON_FILES:
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.Try):
                continue
            catches = {n.id for h in node.handlers if h.type is not None
                       for n in ast.walk(h.type) if isinstance(n, ast.Name)}
            if not catches & {"ImportError", "ModuleNotFoundError"}:
                continue
            guarded += [f"{path.relative_to(ROOT)} guards the import of {module}"
                        for statement in node.body for inner in ast.walk(statement)
                        for module in _imported_modules(inner)
                        if module.split(".")[0] in FIRST_PARTY]
    assert guarded == []


# Size is advice, one concept a module the rule (a review's, not a test's): this cap catches only
# the real outliers, so a module is never split just to get under it.
MAX_LINES = 600


def test_no_module_is_longer_than_one_idea_needs():
    long = [f"{path.relative_to(ROOT)}: {n} lines" for path in PYTHON_FILES
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert long == []
