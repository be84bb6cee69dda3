"""Model backends of ``jiezi eval`` and the Space, as a registry (:data:`BACKENDS`).

A backend is a :class:`~harness.eval.backends.base.Backend` subclass registered under its
``kind``; ``jiezi eval`` (:mod:`harness.eval.run`), the paper protocol and the Space
(``space/backends.py``) look a ``--model`` spec up there
(:func:`~harness.eval.backends.base.parse_model_spec`) and never branch on the kind.
Adding a backend = one module beside this one with one subclass (``kind``, ``spec_form``,
``parse_spec``, ``create``, ``settings``, ``generate``) and one line in :data:`BACKENDS` below.

Model specs (``--model``):

- ``openai:MODEL@BASE_URL`` (``@BASE_URL`` optional, default the OpenAI API): any
  OpenAI-compatible chat-completions server (vLLM, SGLang, LMDeploy, Ollama, commercial
  APIs); images travel as ``data:image/png;base64`` URLs; the key is read from
  ``$OPENAI_API_KEY`` or ``$JIEZI_API_KEY`` (none is sent when neither is set).
- ``hf:PATH_OR_ID``: a local transformers VLM (``AutoModelForImageTextToText`` +
  processor + chat template), batched, greedy; device auto: cuda, then npu (torch_npu),
  then cpu.
- ``retrieval``: the offline JieZi baseline (:mod:`harness.baselines.retrieval`).
- ``ocr[:MODEL[/closed]]``: PP-OCR from the ``rapidocr`` wheel reading the glyph, the
  other levels from that character's records (:mod:`harness.baselines.ocr_baseline`).
- ``fused[:MODEL]``: PP-OCR and retrieval deciding together (:mod:`harness.baselines.fusion`),
  the default of ``jiezi explain`` and the Space.
"""

from harness.eval.backends.base import BACKENDS
from harness.eval.backends.baselines import FusedBackend, OCRBackend, RetrievalBackend
from harness.eval.backends.hf import HFBackend
from harness.eval.backends.openai_chat import OpenAIBackend

# The registry: spec prefix -> backend class. A new backend is a module beside this one and a
# line here (the order is the order of the accepted forms in messages and --help).
BACKENDS.update({
    OpenAIBackend.kind: OpenAIBackend,
    HFBackend.kind: HFBackend,
    RetrievalBackend.kind: RetrievalBackend,
    OCRBackend.kind: OCRBackend,
    FusedBackend.kind: FusedBackend,
})
