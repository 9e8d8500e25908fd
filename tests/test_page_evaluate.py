"""The Evaluate page under AppTest: pick a shipped set, run two presets at top-k and at a token
budget, see metrics with intervals, the verdict of B against A and the table-question
comparison, drill down, keep earlier results when a later run fails, and start the question
picker afresh when the set changes."""

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.chunking.checks import LABELS
from core.config import SAMPLE_QUESTIONS_DIR, data_dir
from core.embeddings import BUILTIN
from core.evaluation.questions import parse_questions
from core.operations.evaluation import Retrieval
from core.operations.evaluation.confidence import best_configuration
from core.operations.presets import SMALL_TO_BIG, Preset, save_user_preset
from core.operations.questions.sets import save_set
from tests.pages import texts
from ui.persist import STATE_FILE
from ui.settings_form import Configuration

PAGE = str(Path(__file__).resolve().parents[1] / "pages" / "evaluate.py")


def _new_user() -> None:
    """Inputs are kept in the data folder for the next session: each test starts without."""
    (data_dir() / STATE_FILE).unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def new_user() -> None:
    _new_user()


@pytest.fixture(scope="module")
def ran() -> AppTest:
    _new_user()
    at = AppTest.from_file(PAGE, default_timeout=240)
    at.run()
    assert not at.exception
    at.selectbox(key="evaluate_set").set_value("insurance_policy").run()
    at.multiselect(key="evaluate_configs").set_value(
        ["fixed 1000 chars", "recursive 500/50"]).run()
    at.radio(key="evaluate_rank").set_value("hybrid").run()
    at.radio(key="evaluate_retrieval").set_value("both").run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception, at.exception
    return at


def test_metrics_table_has_one_column_per_configuration_and_a_winner(ran):
    frame = ran.dataframe[0].value
    assert list(frame.columns) == ["fixed 1000 chars", "recursive 500/50", "Winner"]
    assert {"Recall", "Precision", "IoU", "Precision Ω", "Hit rate", "MRR",
            "Table-query accuracy"} <= set(frame.index)
    assert any("★" in str(v) for v in frame.values.ravel())
    recall = frame.loc["Recall", "fixed 1000 chars"].lstrip("★ ")
    value, interval = recall.split(" (")
    low, high = (float(x) for x in interval.rstrip("%)").replace("%", "").split("–"))
    assert low <= float(value.rstrip("%")) <= high
    assert not ran.error


def test_integrity_counts_per_configuration_under_the_badge_labels(ran):
    frame = next(d for d in ran.dataframe if "Check" in d.value.columns).value
    assert list(frame.columns) == ["Check", "Kind", "fixed 1000 chars", "recursive 500/50"]
    assert list(frame["Check"]) == list(LABELS.values())
    results = ran.session_state["evaluate_results"]["groups"]["top-5"]
    for result in results:
        assert list(frame[result.candidate.label]) == [result.integrity[k] for k in LABELS]
    rows = frame.set_index("Check")
    assert rows.loc["cut words", "fixed 1000 chars"] > 0  # fixed windows cut words
    assert rows.loc["offsets wrong", "Kind"] == "invariant"
    assert rows.loc["cut words", "Kind"] == "warning"
    assert not ran.warning  # no invariant is broken


def test_top_k_and_budget_results_and_a_verdict(ran):
    assert ran.radio(key="evaluate_view").options == ["top-5", "1,000-token budget"]
    assert "ranking hybrid · top-5 · chunks" in texts(ran)
    verdicts = texts(ran)
    assert ("recursive 500/50 is better than fixed 1000 chars on recall (p = " in verdicts
            or "No difference on recall detectable with" in verdicts)
    outcomes = next(d for d in ran.dataframe if "Result" in d.value.columns).value
    assert set(outcomes["Result"]) <= {"A wins", "B wins", "tie"}
    ran.radio(key="evaluate_view").set_value("1,000-token budget").run()
    assert not ran.exception
    assert "ranking hybrid · 1,000-token budget · chunks" in texts(ran)
    ran.radio(key="evaluate_view").set_value("top-5").run()


def test_table_query_comparison_is_shown(ran):
    labels = [m.label for m in ran.metric]
    assert "Baseline: fixed 1000 chars" in labels and "recursive 500/50" in labels
    assert any("15% target" in c.value for c in ran.caption)


def test_drill_down_lists_each_reference_per_configuration(ran):
    coverage = next(d for d in ran.dataframe if "Reference" in d.value.columns).value
    assert list(coverage.columns) == ["Reference", "fixed 1000 chars", "recursive 500/50"]
    assert all(v == "missed" or v.startswith("ranks ") for v in coverage.iloc[:, 1:].values.ravel())
    _picker(ran).set_value(3).run()
    assert not ran.exception


def test_three_configurations_say_which_is_best_and_how_sure():
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("product_manual").run()
    configs = ["fixed 1000 chars", "fixed 500 tokens", "recursive 500/50"]
    at.multiselect(key="evaluate_configs").set_value(configs).run()
    at.radio(key="evaluate_rank").set_value("bm25").run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception and not at.error
    results = at.session_state["evaluate_results"]["groups"]["top-5"]
    best = best_configuration(list(results))
    assert best is not None and set(best.probabilities) == set(configs)
    assert best.sentence() in texts(at)
    assert "of resamples of the 19 questions" in best.sentence()
    [details] = [e for e in at.expander if e.label == "Probability of being best"]
    assert any("drawn again with replacement 2,000 times" in c.value for c in details.caption)


def test_two_configurations_give_no_best_of(ran):
    assert "of resamples" not in texts(ran)
    assert "Probability of being best" not in [e.label for e in ran.expander]


def test_rerun_is_cached_and_a_failing_run_keeps_results(ran):
    ran.button(key="evaluate_run").click().run()
    assert any("cached" in c.value for c in ran.caption)
    ran.multiselect(key="evaluate_configs").set_value(["fixed 1000 chars"]).run()
    assert ran.button(key="evaluate_run").disabled  # one configuration is not a comparison
    assert ran.dataframe[0].value.shape[1] == 3  # the earlier results stay


def test_changing_the_set_resets_the_question_picker(tmp_path):
    manual = parse_questions((SAMPLE_QUESTIONS_DIR / "product_manual.csv").read_bytes())
    texts_only = [q for q in manual.questions if q.kind == "text"][:6]  # no table questions
    save_set("manual copy", texts_only)
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("insurance_policy").run()
    at.radio(key="evaluate_rank").set_value("bm25").run()
    at.button(key="evaluate_run").click().run()
    _picker(at).set_value(7).run()
    assert _picker(at).value == 7
    at.selectbox(key="evaluate_set").set_value("saved: manual copy").run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception
    picker = _picker(at)
    assert picker.value == 0 and len(picker.options) == 6
    assert texts_only[0].question in picker.options[0]
    assert at.dataframe[0].value.loc["Table-query accuracy", "Winner"] == "—"
    coverage = next(d for d in at.dataframe if "Reference" in d.value.columns).value
    start = texts_only[0].references[0].start
    assert coverage["Reference"][0].startswith(f"1: [{start}:")


def _picker(at: AppTest):
    """The question picker (its key follows the questions it lists)."""
    return next(s for s in at.selectbox if s.label == "Question")


def test_a_preset_with_its_own_ranking_keeps_it_and_the_results_say_so():
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("technical_handbook").run()
    at.multiselect(key="evaluate_configs").set_value(["fixed 1000 chars", SMALL_TO_BIG]).run()
    assert at.radio(key="evaluate_rank").value == "vector"
    assert (f"Its own way to retrieve: {SMALL_TO_BIG} ranks hybrid, neighbours merged."
            in texts(at))
    at.button(key="evaluate_run").click().run()
    assert not at.exception and not at.error
    assert (f"ranking: fixed 1000 chars vector, {SMALL_TO_BIG} hybrid, neighbours merged · top-5"
            in texts(at))
    results = at.session_state["evaluate_results"]["groups"]["top-5"]
    assert [r.ranking for r in results] == ["vector", "hybrid"]
    history = next(d for d in at.dataframe if "Retrieval" in d.value.columns).value
    assert list(history["Retrieval"][:2]) == ["vector · top-5", "hybrid · top-5"]


def test_a_preset_with_its_own_retrieval_keeps_it_and_its_row_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_DATA_DIR", str(tmp_path))
    save_user_preset("tuned", "recursive", {"size": 300, "overlap": 30},
                     embedder=BUILTIN, retrieval=Retrieval(8))
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("technical_handbook").run()
    at.multiselect(key="evaluate_configs").set_value(["fixed 1000 chars", "tuned"]).run()
    assert "Its own way to retrieve: tuned retrieves top-8; tuned embeds with MiniLM" in texts(at)
    at.button(key="evaluate_run").click().run()
    assert not at.exception and not at.error
    assert [r.k for r in at.session_state["evaluate_results"]["groups"]["top-5"]] == [5, 8]
    rows = at.table[0].value
    assert list(rows["Retrieval"]) == ["top-5", "top-8"]
    assert "retrieval: fixed 1000 chars top-5, tuned top-8" in texts(at)
    history = next(d for d in at.dataframe if "Retrieval" in d.value.columns).value
    assert list(history["Retrieval"][:2]) == ["vector · top-5", "vector · top-8"]


def test_a_configuration_started_from_a_tuned_preset_keeps_its_way_to_retrieve():
    tuned = Preset("tuned", "recursive", {"size": 300}, builtin=False, ranking="hybrid",
                   embedder=BUILTIN, retrieval=Retrieval(8))
    edited = Configuration("mine", "recursive", {"size": 250}, tuned).candidate()
    assert (edited.label, edited.settings, edited.ranking) == ("mine", {"size": 250}, "hybrid")
    assert edited.retrieval == Retrieval(8) and edited.own_embedder
    other = Configuration("fixed", "fixed", {"size": 250}, tuned).candidate()
    assert (other.ranking, other.retrieval, other.own_embedder) == (None, None, False)


def test_inputs_survive_a_page_switch_and_results_say_what_they_were_computed_for():
    at = AppTest.from_file(str(Path(PAGE).parents[1] / "app.py"), default_timeout=240).run()
    at.switch_page("pages/evaluate.py").run()
    at.selectbox(key="evaluate_set").set_value("technical_handbook").run()
    at.multiselect(key="evaluate_configs").set_value(
        ["fixed 1000 chars", "recursive 500/50", "semantic"]).run()
    at.radio(key="evaluate_rank").set_value("bm25").run()
    at.number_input(key="evaluate_k").set_value(3).run()
    at.button(key="evaluate_run").click().run()
    assert "computed for other inputs" not in texts(at)
    at.switch_page("pages/settings.py").run()  # another page: no Evaluate widget is drawn
    assert "evaluate_set" not in [b.key for b in at.selectbox]
    at.switch_page("pages/evaluate.py").run()
    assert not at.exception
    assert at.selectbox(key="evaluate_set").value == "technical_handbook"
    assert at.multiselect(key="evaluate_configs").value == [
        "fixed 1000 chars", "recursive 500/50", "semantic"]
    assert (at.radio(key="evaluate_rank").value, at.number_input(key="evaluate_k").value) == (
        "bm25", 3)
    assert "computed for other inputs" not in texts(at)  # they match the inputs above
    at.selectbox(key="evaluate_set").set_value("insurance_policy").run()
    note = texts(at)
    assert ("These results were computed for other inputs than those above: Question set: "
            "technical_handbook; Configurations: fixed 1000 chars, recursive 500/50, semantic; "
            "Ranking: bm25; Retrieve: top-3; Without prefixes too: no; Front matter included: "
            "no." in note)
    again = AppTest.from_file(PAGE, default_timeout=240).run()  # a reload or a restart
    assert again.selectbox(key="evaluate_set").value == "insurance_policy"
    assert again.radio(key="evaluate_rank").value == "bm25"
    assert "The last results for these inputs" not in texts(again)  # never run
    again.selectbox(key="evaluate_set").set_value("technical_handbook").run()
    assert not again.exception
    assert "The last results for these inputs" in texts(again)  # from the run history
    last = again.dataframe[0].value
    assert list(last["Configuration"]) == ["fixed 1000 chars", "recursive 500/50", "semantic"]
    assert set(last["Retrieval"]) == {"bm25 · top-3"} and set(last["Question set"]) == {
        "technical_handbook"}
    again.number_input(key="evaluate_k").set_value(4).run()
    assert "The last results for these inputs" not in texts(again)  # other inputs: none kept


def test_a_cluster_configuration_is_made_from_its_settings_form_and_evaluated():
    at = AppTest.from_file(PAGE, default_timeout=240).run()
    at.selectbox(key="evaluate_set").set_value("technical_handbook").run()
    at.toggle(key="eval_custom:settings_open").set_value(True).run()
    at.selectbox(key="eval_custom:recursive 500/50:strategy").set_value("cluster").run()
    form = "eval_custom:recursive 500/50:cluster"
    assert {n.key for n in at.number_input if n.key.startswith(form)} == {
        f"{form}:{name}" for name in ("size", "piece_size", "bias", "min_share",
                                      "table_max_tokens")}
    at.number_input(key=f"{form}:size").set_value(150).run()
    at.text_input(key="eval_custom_label").set_value("cluster 150")
    at.button(key="eval_custom_add").click().run()
    at.multiselect(key="evaluate_configs").set_value(["recursive 500/50", "cluster 150"]).run()
    at.button(key="evaluate_run").click().run()
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["recursive 500/50", "cluster 150", "Winner"]
    assert float(frame.loc["Recall", "cluster 150"].lstrip("★ ").split("%")[0]) > 50
