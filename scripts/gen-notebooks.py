"""Writes samples/lecture.ipynb (English) and samples/lecture.ko.ipynb (Korean) from the one cell
list below, and samples/head_view.ipynb (the inline attention views) from its own list, executed,
with their outputs (figures as PNG), so a student can read them without building tfx. Both
lecture notebooks run the same code cells; only the text differs, and lecture.ko asks tfx for
Korean output (tfx.LANG = "ko") where the tfx it runs has --lang.

    /usr/bin/python3 scripts/gen-notebooks.py [OUTPUT_DIR]     (default: samples/)

Needs the built tfx (build/tfx, or $TFX_BINARY), jupyter's nbclient + ipykernel (Debian:
jupyter-nbconvert python3-ipykernel), and ../shared/data beside the checkout for the real-GloVe
cell. Outputs are deterministic; ctest's notebook_lecture / notebook_lecture_ko execute the
committed notebooks afresh and fail when any output differs, notebooks_committed when the cells
differ from this list.
"""
import json
import sys
from pathlib import Path

M = "md"
C = "code"

cells = [
(M, """# The transformer lecture with tfx

This notebook walks the lecture in order — sinusoidal positional encoding, RoPE, word embeddings,
attention, layer norm and the warm-up schedule — with one short call of tfx's Python helper per
step. The helper runs the `tfx` binary, so every number here is what the command line prints;
matrices arrive as numpy arrays that carry their labels (`tfx.Matrix`: tokens, positions, axis
names), tables as pandas DataFrames, single numbers as floats, and figures are shown inline.
Where a result can be computed independently, a few lines of numpy check it.

Run it from `samples/` in a checkout (after `cmake --build build`), or anywhere after
`pip install .` (or `cmake --install build`) — the notebook alone in any folder is enough; a
cell whose data file is missing says so and moves on.""",
"""# tfx로 따라가는 트랜스포머 강의

이 노트북은 강의 순서대로 — sinusoidal positional encoding, RoPE, 단어 임베딩, attention, layer norm,
warm-up 학습률 — 각 단계를 tfx Python 헬퍼 호출 한 번으로 보여 줍니다. 헬퍼는 `tfx` 실행 파일을
그대로 실행하므로 여기 나오는 숫자는 명령줄에서 보는 숫자와 같습니다. 행렬은 라벨(토큰, 위치, 축
이름)을 지닌 numpy 배열(`tfx.Matrix`)로, 표는 pandas DataFrame으로, 값 하나는 float로 돌아오고,
그림은 노트북 안에 바로 표시됩니다. 독립적으로 계산할 수 있는 결과는 numpy 몇 줄로 검산합니다.

체크아웃의 `samples/`에서 (`cmake --build build` 후) 실행하거나, `pip install .`
(또는 `cmake --install build`) 후 어디서든 실행할 수 있습니다 — 노트북 파일 하나만 있으면 되고,
데이터 파일이 없는 셀은 그렇다고 알리고 넘어갑니다."""),
(C, """import sys
from pathlib import Path
import numpy as np

try:
    import tfx
except ImportError:  # running from a checkout without `cmake --install`: use its python/ folder
    sys.path.insert(0, str(Path("..", "python").resolve()))
    import tfx

print(tfx.version())"""),

(M, """## 0. Tokens

Before any embedding, the sentence is cut into tokens — by words, by characters or into subwords —
and each token gets an id in the vocabulary. The notes' "I love playing football.":""",
"""## 0. 토큰

임베딩 전에 문장을 토큰으로 나눕니다 — 단어 단위, 문자 단위, 또는 서브워드 단위 — 그리고 각 토큰은
사전(vocabulary)의 id를 받습니다. 노트의 "I love playing football.":"""),
(C, """sentence = "I love playing football."
for mode in ("word", "subword"):
    tokens = list(tfx.json("tokenize", sentence, mode=mode)["summary"]["tokens"])
    print(f"{mode:8}", tokens)
assert tokens == ["I", "love", "play", "##ing", "foot", "##ball", "."]
tfx.tokenize(sentence, vocab="wordpiece")  # a table: a pandas DataFrame when pandas is installed"""),

(M, """Text → tokenizer → ids → embedding table → rows: by default `tokenize` and `lookup` share one
vocabulary, the teaching translator's, so the ids `tokenize` prints are the rows `lookup` returns
(and the rows `trace` and `attention` start from). `vocab="wordpiece"` above chose the small
WordPiece vocabulary instead; `table="named-dims"` below chooses the 531-word embedding with named
dimensions.""",
"""텍스트 → 토크나이저 → id → 임베딩 테이블 → 행: 기본값으로 `tokenize`와 `lookup`은 하나의 어휘,
교육용 번역기의 어휘를 함께 쓰므로 `tokenize`가 찍은 id가 곧 `lookup`이 돌려주는 행입니다 (`trace`와
`attention`이 시작하는 행이기도 합니다). 위의 `vocab="wordpiece"`는 작은 WordPiece 어휘를 고른 것이고,
아래의 `table="named-dims"`는 이름 붙은 차원을 가진 531 단어 임베딩을 고릅니다."""),
(C, """ids = tfx.json("tokenize", "나는 학생 이다")["summary"]["ids"]
E = tfx.lookup(ids=ids)  # row k of the translator's table is token k
print(ids, E.shape, list(E.rows))
assert list(E.rows) == ["나는", "학생", "이다"]"""),

(M, """## 1. Sinusoidal positional encoding

PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
The lecture's figure: 50 positions × 128 dimensions, blue ≈ +1, red ≈ −1. Row 0 alternates
0, 1, 0, 1; the left columns oscillate fast, the right ones hardly change.""",
"""## 1. Sinusoidal positional encoding

PE(pos, 2i) = sin(pos / 10000^(2i/d)),  PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
강의의 그림: 위치 50개 × 128차원, 파랑 ≈ +1, 빨강 ≈ −1. 0번 행은 0, 1, 0, 1이 반복되고, 왼쪽
열은 빠르게 진동하며 오른쪽 열은 거의 변하지 않습니다."""),
(C, """tfx.show("pe", len=50, dim=128)"""),
(M, """The same matrix as numbers is a (50, 128) float32 array. Written out in numpy, the formula gives
the same values:""",
"""같은 행렬을 숫자로 받으면 (50, 128) float32 배열입니다. 공식을 numpy로 직접 써도 같은 값이
나옵니다:"""),
(C, """pe = tfx.pe(len=50, dim=128)
print(pe.shape, pe.dtype, "row 0:", pe[0, :6])

pos = np.arange(50)[:, None]
angle = pos / 10000 ** (np.arange(0, 128, 2) / 128)
reference = np.empty((50, 128))
reference[:, 0::2], reference[:, 1::2] = np.sin(angle), np.cos(angle)
print("max |tfx - numpy| =", np.abs(pe - reference).max())
assert np.abs(pe - reference).max() < 1e-5"""),
(M, """The worked example PE(1, 2) with d_model = 4 is sin(1/10000^(2/4)) = sin(1/100) ≈ 0.00999983.
A single value comes back as a Python float:""",
"""예제 PE(1, 2) (d_model = 4)는 sin(1/10000^(2/4)) = sin(1/100) ≈ 0.00999983 입니다.
값 하나는 Python float로 돌아옵니다:"""),
(C, """one = tfx.pe(dim=4, pos=1, i=2)
print(f"PE(1, 2) = {one:.8f}")
assert abs(one - np.sin(1 / 100)) < 1e-12"""),

(M, """### PE·PEᵀ: the dot product of position encodings

"Near positions are similar, far ones less so." `tfx pe sim` computes PE·PEᵀ; it equals the
product of the array above with its transpose, its diagonal is d/2 = 64, and every diagonal is
constant — the similarity depends only on the offset j − i:""",
"""### PE·PEᵀ: 위치 인코딩끼리의 내적

"가까운 위치끼리는 내적이 크고, 먼 위치끼리는 작다." `tfx pe sim`은 PE·PEᵀ를 계산합니다. 위 배열과
그 전치의 곱과 같고, 대각선은 d/2 = 64이며, 모든 대각선이 일정합니다 — 유사도는 오프셋 j − i에만
의존합니다:"""),
(C, """sim = tfx.pe.sim(len=50, dim=128)
# the reference in float64, printed to 2 digits: the same on every BLAS numpy may load
pe64 = np.asarray(pe, dtype=np.float64)
print(f"max |sim - pe @ pe.T| = {np.abs(sim - pe64 @ pe64.T).max():.1e}")
assert np.abs(sim - pe64 @ pe64.T).max() < 1e-3
assert np.allclose(np.diag(sim), 64, atol=1e-4)
spread = max(np.ptp(np.diagonal(sim, k)) for k in range(-49, 50))
print("largest spread along a diagonal:", spread)
assert spread < 1e-3
tfx.show("pe sim", len=50, dim=128)"""),

(M, """### PE(pos + K) is a rotation of PE(pos)

For each (sin, cos) pair m, shifting the position by K multiplies by
[[cos Kω_m, sin Kω_m], [−sin Kω_m, cos Kω_m]], ω_m = 10000^(−2m/d) — the same matrix R(K) for every
position. tfx builds R(3) for d = 8; numpy builds it again from the formula and applies it:""",
"""### PE(pos + K)는 PE(pos)의 회전

각 (sin, cos) 쌍 m에 대해 위치를 K만큼 옮기면 [[cos Kω_m, sin Kω_m], [−sin Kω_m, cos Kω_m]]
(ω_m = 10000^(−2m/d))을 곱한 것과 같습니다 — 모든 위치에 같은 행렬 R(K). tfx가 d = 8의 R(3)을
만들고, numpy로 공식에서 다시 만들어 적용해 봅니다:"""),
(C, """R = tfx.pe.shift(offset=3, dim=8, rotation=True)
omega = 10000.0 ** (-np.arange(0, 8, 2) / 8)
R_numpy = np.zeros((8, 8))
for m, w in enumerate(omega):
    c, s = np.cos(3 * w), np.sin(3 * w)
    R_numpy[2 * m:2 * m + 2, 2 * m:2 * m + 2] = [[c, s], [-s, c]]
assert np.abs(R - R_numpy).max() < 1e-6

p = tfx.pe(len=50, dim=8)
error = np.abs(p[3:] - np.asarray(p[:-3], dtype=np.float64) @ R.T).max()  # row p+3 = R · row p
print(np.round(R[:4, :4], 4), f"\\nmax |PE(p+3) - R(3)·PE(p)| = {error:.1e}")
assert error < 1e-5"""),

(M, """## 2. RoPE

Step 1 of the notes: the angle table θ(pos, j) = pos · 10000^(−2j/d), shape [L_max, d/2]. Step 3:
with RoPE, the score s_ij = (R_i q)·(R_j k)/√d depends only on j − i, because R_θᵀR_φ = R_{φ−θ}.
`tfx rope relative` places the same q and k at every position; each diagonal of its table is
constant:""",
"""## 2. RoPE

노트의 1단계: 각도 테이블 θ(pos, j) = pos · 10000^(−2j/d), shape [L_max, d/2]. 3단계: RoPE에서
점수 s_ij = (R_i q)·(R_j k)/√d 는 R_θᵀR_φ = R_{φ−θ} 이므로 j − i 에만 의존합니다.
`tfx rope relative`는 모든 위치에 같은 q, k를 두고 계산하며, 표의 각 대각선이 일정합니다:"""),
(C, """theta = tfx.rope(len=4, dim=8, what="theta")
assert np.allclose(theta, np.arange(4)[:, None] * 10000.0 ** (-np.arange(0, 8, 2) / 8), atol=1e-6)
print(theta)

scores = tfx.rope.relative(dim=8, len=6)
print(np.round(scores, 4))
spread = max(np.ptp(np.diagonal(scores, k)) for k in range(-5, 6))
print("largest spread along a diagonal j - i:", spread)
assert spread < 1e-5"""),
(C, """tfx.show("rope relative", dim=64, len=16)"""),

(M, """## 3. Word embeddings: E(queen) ≈ E(king) − E(man) + E(woman)

First on real vectors: the GloVe file in `../shared/data` beside the checkout (the 2,604 most
frequent words of glove.6B.100d). When the file is not there, this cell says so and moves on.""",
"""## 3. 단어 임베딩: E(queen) ≈ E(king) − E(man) + E(woman)

먼저 실제 벡터로: 체크아웃 옆 `../shared/data`의 GloVe 파일 (glove.6B.100d에서 가장 자주 쓰이는
2,604 단어). 파일이 없으면 이 셀은 그 사실만 알리고 넘어갑니다."""),
(C, """glove = Path("..", "..", "shared", "data", "glove.6B.100d.top2604.txt")
if glove.exists():
    real = tfx.analogy("king", "man", "woman", embeddings=glove, k=3)  # [(word, cosine), …] like gensim
    for word, cosine in real:
        print(f"{word:10} {cosine:.4f}")
    assert real[0][0] == "queen"
else:
    print(f"skipped: {glove} is not here")"""),
(M, """The same query on tfx's built-in teaching embedding (531 words, 64 named dimensions). The score
is the cosine of the answer to unit(king) − unit(man) + unit(woman); numpy recomputes it from the
rows `tfx lookup` returns:""",
"""같은 질의를 tfx의 내장 교육용 임베딩 (531 단어, 이름 붙은 64차원)으로. 점수는 답과
unit(king) − unit(man) + unit(woman) 사이의 코사인이며, `tfx lookup`이 돌려준 행으로 numpy가
다시 계산합니다:"""),
(C, """print(tfx.table("analogy", "king", "man", "woman"))
best_word, best_cosine = tfx.analogy("king", "man", "woman")[0]
assert best_word == "queen"

E = tfx.lookup(words="king,man,woman,queen", table="named-dims")
u = E / np.linalg.norm(E, axis=1, keepdims=True)
query = u[0] - u[1] + u[2]
cosine = query @ u[3] / np.linalg.norm(query)
print(f"numpy: {cosine:.6f}   tfx: {best_cosine:.6f}")
assert abs(cosine - best_cosine) < 1e-5"""),

(M, """Many queries at once: `queries="-"` sends the lines on standard input. A line tfx cannot answer
(here a misspelt word) is skipped and reported under the cell; the others are answered:""",
"""여러 질의를 한 번에: `queries="-"`는 줄들을 표준 입력으로 보냅니다. 답할 수 없는 줄 (여기서는 철자가
틀린 단어)은 건너뛰고 셀 아래에 알려 주며, 나머지는 답합니다:"""),
(C, """queries = "king man woman\\nparis france germany\\nking man wmoan\\n"
batch = tfx.json("analogy", queries="-", stdin=queries, k=1, embeddings=glove if glove.exists() else None)
for row in batch["data"]:
    print(f'{row["a"]} - {row["b"]} + {row["c"]} ≈ {row["word"]}')
print("skipped:", [(s["line"], s["word"]) for s in batch["tables"]["skipped"]])
assert [s["word"] for s in batch["tables"]["skipped"]] == ["wmoan"]"""),

(M, """### The plural direction: plur·E(dog) = −1.13, plur·E(dogs) = 3.40

plur is the mean of E(dogs) − E(dog), E(cats) − E(cat), E(cars) − E(car). Singulars score
negative and plurals positive — also apple/apples, which did not build the direction:""",
"""### 복수형 방향: plur·E(dog) = −1.13, plur·E(dogs) = 3.40

plur는 E(dogs) − E(dog), E(cats) − E(cat), E(cars) − E(car)의 평균입니다. 단수형은 음수, 복수형은
양수가 나옵니다 — 방향을 만드는 데 쓰지 않은 apple/apples도 마찬가지입니다:"""),
(C, """words = ["dog", "dogs", "apple", "apples"]
d = tfx.json("direction", from_="dog,cat,car", to="dogs,cats,cars", words=words)
dots = {row["word"]: row["dot"] for row in d["data"]}
print(dots)
assert round(dots["dog"], 2) == -1.13 and round(dots["dogs"], 2) == 3.40

E = tfx.lookup(words="dog,cat,car,dogs,cats,cars", table="named-dims")
plur = (E[3:] - E[:3]).mean(axis=0)
for word, vector in zip(words, tfx.lookup(words=words, table="named-dims")):
    assert abs(plur @ vector - dots[word]) < 1e-4"""),

(M, """## 4. Attention: a weighted average of the values

A(q, K, V) = Σᵢ softmax(q·kᵢ)·vᵢ. With scores differing by ln 4 the weights are the notes' 0.2 and
0.8, and the output holds more of the value with the larger weight. Matrices go in as numpy arrays
(the helper hands them to tfx through a pipe); `no_scale=True` leaves out the √d_k:""",
"""## 4. Attention: value의 가중 평균

A(q, K, V) = Σᵢ softmax(q·kᵢ)·vᵢ. 점수 차이가 ln 4이면 weight는 노트의 0.2와 0.8이 되고, 출력은
weight가 큰 value의 정보를 더 많이 담습니다. 행렬은 numpy 배열로 넘깁니다 (헬퍼가 파이프로 tfx에
전달). `no_scale=True`는 √d_k로 나누지 않습니다:"""),
(C, """q = np.array([[1.0, 0.0]])
k = np.array([[0.0, 0.0], [np.log(4), 0.0]])
v = np.eye(2)
w = tfx.attention(q=q, k=k, v=v, no_scale=True)
print("weights:", w)
assert np.allclose(w, [[0.2, 0.8]], atol=1e-6)"""),
(M, """Large scores make the softmax nearly one-hot: the notes' [0, −11, 7] (standard deviation about
10, as for d_k = 100) puts 99.9% on one key; dividing by √100 = 10 (`temperature=10`) softens it:""",
"""점수가 크면 softmax가 거의 one-hot이 됩니다: 노트의 [0, −11, 7] (d_k = 100일 때처럼 표준편차 약
10)은 한 key에 99.9%를 주고, √100 = 10으로 나누면 (`temperature=10`) 완만해집니다:"""),
(C, """scores = np.array([[0.0], [-11.0], [7.0]])
sharp = tfx.attention(q=np.ones((1, 1)), k=scores, v=scores, no_scale=True)
soft = tfx.attention(q=np.ones((1, 1)), k=scores, v=scores, no_scale=True, temperature=10)
print("unscaled:", np.round(sharp, 4), " scaled by 10:", np.round(soft, 4))
expected = np.exp(scores[:, 0] / 10) / np.exp(scores[:, 0] / 10).sum()
assert sharp[0, 2] > 0.999 and np.allclose(soft[0], expected, atol=1e-6)"""),

(M, """### Self-attention: Z = softmax(QKᵀ/√d_k)·V

Self-attention over "I love playing football": X = embedding + PE, Q = XW_Q, K = XW_K, V = XW_V
(random Xavier weights from a fixed seed, so the weights are close to uniform — this shows the
mechanics, not a trained model). The table, then numpy redoing softmax(QKᵀ/√d_k) and Z = weights·V
from the Q, K, V that tfx used:""",
"""### Self-attention: Z = softmax(QKᵀ/√d_k)·V

"I love playing football"에 대한 self-attention: X = embedding + PE, Q = XW_Q, K = XW_K, V = XW_V
(고정 seed의 무작위 Xavier 가중치이므로 weight는 거의 균등합니다 — 학습된 모델이 아니라 계산
과정을 보여 줍니다). 표를 본 뒤, tfx가 쓴 Q, K, V로 numpy가 softmax(QKᵀ/√d_k)와 Z = weights·V를
다시 계산합니다:"""),
(C, """sentence = "I love playing football"
print(tfx.table("attention", sentence=sentence, show="weights"))

weights = tfx.attention(sentence=sentence)
Q, K, V, Z = (tfx.attention(sentence=sentence, show=m) for m in ("q", "k", "v", "output"))
scaled = Q @ K.T / np.sqrt(Q.shape[1])
softmax = np.exp(scaled - scaled.max(axis=1, keepdims=True))
softmax /= softmax.sum(axis=1, keepdims=True)
print("max |weights - numpy| =", np.abs(weights - softmax).max())
assert np.abs(weights - softmax).max() < 1e-5
assert np.abs(Z - weights @ V).max() < 1e-4"""),
(M, """The decoder's causal mask: query i attends only to keys j ≤ i, so the upper triangle is exactly 0:""",
"""디코더의 causal mask: query i는 key j ≤ i 에만 attend하므로 위쪽 삼각형은 정확히 0입니다:"""),
(C, """causal = tfx.attention(sentence=sentence, causal=True)
assert (np.triu(causal, 1) == 0).all() and np.allclose(causal.sum(axis=1), 1, atol=1e-6)
print(tfx.table("attention", sentence=sentence, causal=True, show="weights"))
tfx.show("attention", sentence=sentence, causal=True)"""),
(M, """Why divide by √d_k: with entries of mean 0 and variance 1, Var(q·k) = d_k, and without the
scaling a few large scores make the softmax nearly one-hot:""",
"""√d_k로 나누는 이유: 성분의 평균이 0, 분산이 1이면 Var(q·k) = d_k 이고, 나누지 않으면 큰 점수 몇
개 때문에 softmax가 거의 one-hot이 됩니다:"""),
(C, """print(tfx.table("attention variance", dk=[2, 100]))"""),

(M, """### A model that has learned: the teaching translator

The built-in translator (docs/translate.md) was trained on the lecture's sentences. Its
cross-attention points at the source word each English word translates; Korean puts the verb
last, so "drank" looks back past the object:""",
"""### 학습된 모델: 교육용 번역기

내장 번역기(docs/translate.md)는 강의의 문장으로 학습되었습니다. cross-attention은 영어 단어가
번역하는 원문 단어를 가리킵니다. 한국어는 동사가 맨 뒤에 오므로 "drank"는 목적어를 지나 동사를 봅니다:"""),
(C, """print(tfx.table("translate", "그녀는 커피를 마셨다"))
tfx.show("translate", "그녀는 커피를 마셨다")"""),

(M, """### Watch it learn: `tfx train`

The translator above was trained; `tfx.train` trains the same architecture here, on tfx's own
tensor core, in seconds. 300 steps (the full run is 3000) already translate the held-out pairs;
the GIF shows the decoder's cross-attention for one sentence going from uniform noise to the
alignment (마셨다 → drank looks back past the object), with the embeddings on fixed PCA axes:""",
"""### 학습 과정 보기: `tfx train`

위의 번역기는 학습된 모델입니다. `tfx.train`은 같은 구조를 tfx 자체 텐서 코어에서 몇 초 만에 학습합니다.
300 스텝(전체는 3000)만으로도 held-out 쌍을 번역합니다. GIF는 한 문장에 대한 디코더 cross-attention이
균일한 잡음에서 정렬로 (마셨다 → drank가 목적어 너머를 봄) 바뀌는 모습과, 고정된 PCA 축 위의 임베딩을 보여 줍니다:"""),
(C, """import contextlib, io, os, tempfile
from IPython.display import Image
here = os.getcwd()
os.chdir(tempfile.mkdtemp())  # the model and the GIF go to a scratch folder
with contextlib.redirect_stderr(io.StringIO()):  # (tfx's "wrote watch.gif …" line)
    curve, model_path = tfx.train(model="m.safetensors", steps=300, threads=1,
                                  gif="watch.gif", watch="그녀는 커피를 마셨다", frames=6)
print(curve.tail(3) if hasattr(curve, "tail") else curve[-3:])
print(tfx.table("translate", "그녀는 커피를 마셨다", model=model_path).splitlines()[0])
display(Image(filename="watch.gif"))
os.chdir(here)"""),

(M, """### Two of the notes' claims as experiments: word order needs PE, 1/√d_k keeps softmax alive

In the English → Korean direction the word order says who does what ("the dog bites the man" /
"the man bites the dog" → 개가 남자를 문다 / 남자가 개를 문다). `--compare pe,no-pe` trains the same
small model twice, from the same seed on the same batches: with positional encoding every
held-out pair comes out right; without it the model sees a bag of words and swaps the roles
(Korean → English needs no PE: the particles 가/를 mark the roles). Then the scaling: at
d_k = 64 the raw scores q·k have variance d_k, so without 1/√d_k the softmax at initialization is
already nearly one-hot — its entropy (nats) is a fraction of the scaled one's:""",
"""### 노트의 두 주장을 실험으로: 단어 순서에는 PE가 필요하고, 1/√d_k가 softmax를 살린다

영어 → 한국어 방향에서는 단어 순서가 누가 무엇을 하는지 정합니다("the dog bites the man" /
"the man bites the dog" → 개가 남자를 문다 / 남자가 개를 문다). `--compare pe,no-pe`는 같은 작은 모델을 같은
시드, 같은 배치로 두 번 학습합니다: 위치 인코딩이 있으면 held-out 쌍이 모두 맞고, 없으면 모델은 단어 주머니만
보고 역할을 바꿔 버립니다(한국어 → 영어에는 PE가 필요 없습니다: 조사 가/를이 역할을 표시합니다). 다음은
스케일링: d_k = 64에서 q·k 점수의 분산은 d_k이므로 1/√d_k가 없으면 초기화 때 이미 softmax가 거의 one-hot입니다 —
그 entropy(nats)가 스케일한 쪽의 일부에 불과합니다:"""),
(C, """display(tfx.show("train", corpus="en-ko", compare="pe,no-pe", steps=400, d_model=32, heads=2, layers=1, ffn=64,
                 threads=2, no_progress=True))
print(tfx.table("train", compare="scale,no-scale", d_model=128, heads=2, ffn=256, steps=1, threads=2,
                no_progress=True).split("\\n\\n")[1])"""),

(M, """### Inside a Hugging Face checkpoint: `tfx model`

tfx opens a checkpoint folder as Hugging Face saves it (config.json, model.safetensors, the
tokenizer files) offline, on its own tensor core: BERT, GPT-2 and the Llama family
(docs/models.md). After `git clone https://huggingface.co/bert-base-uncased`, give that folder to
the same call to see BERT's own heads. Here a tiny BERT in exactly that layout (random weights,
made by tests/reference/gen_hf_models.py; `tfx.sample_model("bert")` finds it in a checkout or
where `pip install` put it) shows the mechanics: WordPiece tokens with [CLS] and [SEP], and one
head's weights as a labelled matrix (all layers and heads: shape (layers, heads, T, T)):""",
"""### Hugging Face 체크포인트 안에서: `tfx model`

tfx는 Hugging Face가 저장한 체크포인트 폴더(config.json, model.safetensors, 토크나이저 파일)를
오프라인으로, 자체 텐서 코어에서 엽니다: BERT, GPT-2, Llama 계열(docs/models.md).
`git clone https://huggingface.co/bert-base-uncased` 한 뒤 그 폴더를 같은 호출에 주면 BERT의 실제
헤드를 볼 수 있습니다. 여기서는 같은 구조의 아주 작은 BERT(무작위 가중치,
tests/reference/gen_hf_models.py로 생성; `tfx.sample_model("bert")`가 체크아웃이나 `pip install`한
위치에서 찾음)로 동작 방식을 봅니다: [CLS]와 [SEP]가 붙은 WordPiece 토큰, 그리고 헤드 하나의 가중치를
라벨이 붙은 행렬로 (모든 층과 헤드는 (layers, heads, T, T) 모양):"""),
(C, """try:
    bert = tfx.sample_model("bert")
except FileNotFoundError as missing:
    bert = None
    print("skipped:", missing)
if bert:
    print(tfx.model.attention(bert, "the cat sat on the mat").axes)
    a = tfx.model.attention(bert, "the cat sat on the mat", layer=0, head=1)
    print(a.shape, a.rows)
    display(tfx.show("model attention", bert, "the cat sat on the mat", layer=0, head=1))"""),

(M, """### Writing on: `tfx model generate`

GPT is the generative decoder: it predicts the next token, appends it, and predicts again, keeping
each layer's keys and values (the KV cache) so a step costs one pass over the weights.
`teaching-gpt` is built into tfx: a small GPT that `tfx train gpt` trained on a small world of
Korean and English sentences, so it writes words. The notes' temperature lesson on it: dividing
the logits by T = 0.5 sharpens the next-token distribution, T = 2 flattens it, and the text at
T = 2 loses its grammar. The table's probability and entropy columns are the model's own
distribution (T = 1) at each step; the figure draws the first step's distribution at each T:""",
"""### 이어서 쓰기: `tfx model generate`

GPT는 생성하는 디코더입니다: 다음 토큰을 예측해 덧붙이고 다시 예측하며, 각 층의 key와 value(KV 캐시)를
보관해 한 스텝이 가중치를 한 번 읽는 비용이 되게 합니다. `teaching-gpt`는 tfx에 내장된 작은 GPT로,
`tfx train gpt`가 작은 세계의 한국어·영어 문장으로 학습시켜 단어를 씁니다. 그 위에서 노트의 temperature
수업: logit을 T = 0.5로 나누면 다음 토큰 분포가 뾰족해지고, T = 2면 평평해져 T = 2의 글은 문법을 잃습니다.
표의 확률과 entropy 열은 스텝마다 모델 자신의 분포(T = 1)이고, 그림은 첫 스텝의 분포를 T마다 그립니다:"""),
(C, """print(tfx.table("model generate", "teaching-gpt", "나는", max_new_tokens=8, temperature="0.5,1,2", seed=1))
display(tfx.show("model generate", "teaching-gpt", "나는", max_new_tokens=8, temperature="0.5,1,2", seed=1))"""),

(M, """### The microscope: logit lens and the KV cache

The logit lens reads the residual stream after every block through the model's final norm and
output head: layer 0 is the embeddings, the last layer the model's own prediction.
`tfx.model.lens` returns the (layers + 1, T, V) probabilities labelled by token; the figure colours
each (layer, position)'s top token by its probability. On `teaching-gpt`, " Paris" is already the
top token after block 0 and grows sharper after. (`model ablate` and `model patch` knock out heads
and patch activations the same way; docs/models.md.) `model info --cache` is the KV cache's size:
2 × layers × kv_heads × head_dim × bytes per token:""",
"""### 현미경: logit lens와 KV 캐시

logit lens는 블록마다 잔차 스트림을 모델의 마지막 정규화와 출력 헤드에 통과시켜 읽습니다: 층 0은
임베딩, 마지막 층은 모델 자신의 예측입니다. `tfx.model.lens`는 토큰 라벨이 붙은 (층 + 1, T, V) 확률을
돌려주고, 그림은 (층, 위치)마다 가장 높은 토큰을 그 확률로 칠합니다. `teaching-gpt`에서는 블록 0 다음에
이미 " Paris"가 가장 높은 토큰이고 그 뒤로 더 뚜렷해집니다. (`model ablate`와 `model patch`는 같은 방식으로
헤드를 끄고 활성값을 바꿔 넣습니다; docs/models.md.) `model info --cache`는 KV 캐시의 크기입니다: 토큰당
2 × 층 × kv_heads × head_dim × 바이트:"""),
(C, """p = tfx.model.lens("teaching-gpt", "The capital of France is")
print(p.shape, p.axes, p.labels[1])
assert np.allclose(p.sum(-1), 1, atol=1e-5)
print("the last position's top probability, layer by layer:", p[:, -1].max(-1).round(4))
display(tfx.show("model lens", "teaching-gpt", "The capital of France is"))
print(tfx.table("model info", "teaching-gpt", cache=True))"""),

(M, """### A ViT that has learned to see: `teaching-vit`

`teaching-vit` is built into tfx too: a ViT that `tfx train vit` trained on shapes tfx draws (circle,
square, triangle, cross, ring, diamond at random size, position, angle and colour). `tfx patches
--shapes --save-pictures DIR` draws pictures it never saw; it labels them, and the attention rollout
of its `[CLS]` token (each layer's heads averaged, ½·I added for the residual, multiplied up the
layers) falls on the shape's patches:""",
"""### 보는 법을 배운 ViT: `teaching-vit`

`teaching-vit`도 tfx에 내장되어 있습니다: `tfx train vit`가 tfx가 그린 도형(원, 정사각형, 삼각형, 십자,
고리, 마름모; 크기·위치·각도·색은 무작위)으로 학습시킨 ViT입니다. `tfx patches --shapes --save-pictures
DIR`는 모델이 본 적 없는 그림을 그립니다; 모델은 그 레이블을 맞히고, `[CLS]` 토큰의 attention rollout
(층마다 헤드 평균, 잔차 몫으로 ½·I를 더해 층을 따라 곱함)은 도형이 있는 패치에 모입니다:"""),
(C, """import contextlib, io, os, tempfile
here = os.getcwd()
os.chdir(tempfile.mkdtemp())  # the pictures go into a scratch folder
with contextlib.redirect_stderr(io.StringIO()):  # (tfx's "wrote 6 pictures …" line)
    print(tfx.table("patches", shapes=True, image=32, patch=8, seed=3, save_pictures="pics"))
print(tfx.table("model logits", "teaching-vit", image="pics/ring.png", top=3))
display(tfx.show("model attention", "teaching-vit", image="pics/ring.png", rollout=True))
os.chdir(here)"""),

(M, """## 5. Layer normalization

"thinking" = (4, 2, 3, 5) and "machines" = (2, 1, −3, 2), normalized per token to mean 0 and variance
1, then y = γ·x̂ + β with the notes' γ = (3, 1, −1, −2), β = (1, 1, 0, 2). (The notes print
μ = 2.5 for "thinking"; it is 3.5.) numpy gives the same y:""",
"""## 5. Layer normalization

"thinking" = (4, 2, 3, 5), "machines" = (2, 1, −3, 2)를 토큰별로 평균 0, 분산 1로 정규화한 뒤
노트의 γ = (3, 1, −1, −2), β = (1, 1, 0, 2)로 y = γ·x̂ + β. (노트는 "thinking"의 μ를 2.5로
적었지만 3.5입니다.) numpy로 계산해도 같은 y가 나옵니다:"""),
(C, """print(tfx.table("layernorm"))
y = tfx.layernorm()
x = np.array([[4, 2, 3, 5], [2, 1, -3, 2]], dtype=float)
gamma, beta = np.array([3, 1, -1, -2]), np.array([1, 1, 0, 2])
x_hat = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
assert np.abs(y - (gamma * x_hat + beta)).max() < 1e-5"""),

(M, """## 6. The warm-up learning rate

lrate = d_model^(−0.5) · min(step^(−0.5), step · warmup^(−1.5)): rising linearly for `warmup`
steps, peaking at d_model^(−0.5)·warmup^(−0.5) ≈ 6.99e-4, then decaying as step^(−0.5).""",
"""## 6. Warm-up 학습률

lrate = d_model^(−0.5) · min(step^(−0.5), step · warmup^(−1.5)): `warmup` 스텝 동안 선형으로
증가하고, d_model^(−0.5)·warmup^(−0.5) ≈ 6.99e-4 에서 최대가 된 뒤 step^(−0.5)로 감소합니다."""),
(C, """result = tfx.json("lr")
steps = np.array([float(s) for s in result["rows"]])
lr = tfx.lr()[:, 0]  # a tfx.Matrix: .rows are the steps, .to_pandas() a labelled table
expected = 512 ** -0.5 * np.minimum(steps ** -0.5, steps * 4000 ** -1.5)
for step, rate in zip(steps[:7], lr):
    print(f"step {step:6.0f}   lr {rate:.4e}")
assert np.allclose(lr, expected, rtol=1e-6)
tfx.show("lr", warmup=[4000, 8000], steps=40000)"""),

(M, """## Errors

A tfx error arrives as a Python exception carrying tfx's one-line message:""",
"""## 오류

tfx 오류는 tfx의 한 줄 메시지를 담은 Python 예외로 전달됩니다:"""),
(C, """try:
    tfx.analogy("king", "man", "wmoan")
except tfx.TfxError as error:
    print(f"exit {error.exit_code}: {error}")"""),
]


HEAD_VIEW = [
(M, """# Attention inline: `tfx.head_view` and `tfx.model_view`

BertViz's habit, offline: `tfx.head_view(attention, tokens)` draws the head view (each query token
on the left joined to each key token on the right, opacity = weight, colour = head; hover a token,
pick the layer and heads) and `tfx.model_view(...)` every layer × head as a small heatmap. They take
a tfx result or any numpy array of weights with its tokens. Each view is tfx's own offline page
(the one `--html` writes) inside the notebook: no network, its own element ids, so any number of
views live in one notebook. It draws in Jupyter, in nbconvert's HTML and in VS Code; GitHub's
preview does not run scripts, so there the frames stay blank."""),
(C, """import sys
from pathlib import Path
import numpy as np

try:
    import tfx
except ImportError:  # running from a checkout without installing: use its python/ folder
    sys.path.insert(0, str(Path("..", "python").resolve()))
    import tfx

print(tfx.version())"""),
(M, """## A tiny BERT (random weights)

`tfx.model.attention` gives every layer and head: shape (layers, heads, T, T) with the axes named.
The sample BERT has random weights, so its heads are not meaningful — only the mechanics are. With a
real checkout folder (`git clone https://huggingface.co/bert-base-uncased`) the same calls show
BERT's own heads."""),
(C, """try:
    bert = tfx.sample_model("bert")
except FileNotFoundError as missing:
    bert = None
    print("skipped:", missing)
if bert:
    a = tfx.model.attention(bert, "the cat sat on the mat")
    print(a.shape, a.axes)
    display(tfx.head_view(a))"""),
(M, """The model view: click a thumbnail to open that layer and head in the view's own head view. Random
heads are nearly uniform, so on the fixed 0 … 1 scale the thumbnails are dark; `contrast="head"`
divides each head by its own maximum (BertViz-like per-head contrast), and the view says which scale
it shows:"""),
(C, """if bert:
    display(tfx.model_view(a))
    display(tfx.model_view(a, contrast="head"))"""),
(M, """## The teaching translator: encoder, decoder and cross-attention

`tfx.trace` runs the built-in translator step by step and keeps every matrix; its three kinds of
attention each get a view (queries on the left). Its weights are trained, so the cross-attention
points at the Korean word each English word translates."""),
(C, """t = tfx.trace("나는 학생 이다")
print(t.translation, "| next token:", t.next_token)
tfx.head_view(t, part="encoder")"""),
(C, """tfx.head_view(t, part="decoder")"""),
(C, """tfx.head_view(t, part="cross")"""),
(M, """`tfx.translate` returns the translation, its greedy steps as a table and the cross-attention as a
labelled matrix (shown as a heat-coloured table); `head_view` of it draws that matrix:"""),
(C, """tr = tfx.translate("그녀는 커피를 마셨다")
print(tr.translation)
display(tr.steps[["token", "probability"]])
tr.cross_attention"""),
(C, """tfx.head_view(tr)"""),
(M, """## Any array of weights

Like BertViz's `head_view(attention, tokens)`: a (T, S), (heads, T, S) or (layers, heads, T, S) array
of softmax weights and the tokens (or `queries=` and `keys=` when they differ). Here two heads made
by hand — one looking at the previous token, one spreading evenly over the past:"""),
(C, """tokens = ["I", "love", "playing", "football"]
T = len(tokens)
previous = np.eye(T, k=-1)
previous[0, 0] = 1.0
causal_mean = np.tril(np.ones((T, T))) / np.arange(1, T + 1)[:, None]
tfx.head_view(np.stack([previous, causal_mean]), tokens=tokens)"""),
]


def source(text):
    lines = text.split("\n")
    return [ln + "\n" for ln in lines[:-1]] + [lines[-1]]


def notebook(lang, cell_list=None):
    out = []
    for cell in cell_list or cells:
        if cell[0] == M:
            text = cell[1] if lang == "en" or len(cell) < 3 else cell[2]
            out.append({"cell_type": "markdown", "metadata": {}, "source": source(text)})
        else:
            out.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                        "source": source(cell[1])})
    return {"cells": out,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


ROOT = Path(__file__).resolve().parent.parent


def stripped(lang, name=None):
    """The notebook as written, before execution (what notebooks_committed compares cell by cell)."""
    if name == "head_view.ipynb":
        nb = notebook(lang, HEAD_VIEW)
        for i, c in enumerate(nb["cells"]):
            c["id"] = f"hv-{i:02d}"
        return nb
    nb = notebook(lang)
    if lang == "ko":  # Korean figures and tables where this tfx speaks Korean
        nb["cells"].insert(2, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                               "source": source('tfx.LANG = "ko"  # 그림과 표를 한국어로 (tfx --lang ko)')})
    for i, c in enumerate(nb["cells"]):
        c["id"] = f"{lang}-{i:02d}"
    return nb


def normalized(nb):
    """What a run leaves that is not the notebook's output (timings, the kernel's Python version)
    removed, so two runs give the same bytes."""
    for c in nb["cells"]:
        c.get("metadata", {}).pop("execution", None)
        # a cell's prints arrive in chunks that depend on timing: one stream output per name
        merged = []
        for o in c.get("outputs", []):
            if o.get("output_type") == "stream" and merged and merged[-1].get("output_type") == "stream" \
                    and merged[-1]["name"] == o["name"]:
                merged[-1]["text"] = "".join(merged[-1]["text"]) + "".join(o["text"])
            else:
                merged.append(o)
        for o in merged:
            if o.get("output_type") == "stream":
                o["text"] = "".join(o["text"]).splitlines(keepends=True)
        if "outputs" in c:
            c["outputs"] = merged
    nb["metadata"]["language_info"] = {"name": "python"}
    return nb


def execute(nb, cwd):
    """Runs every cell with the checkout's python/tfx.py and tfx, as a student would from samples/."""
    import os
    import nbformat
    from nbclient import NotebookClient
    env_binary = os.environ.get("TFX_BINARY") or str(ROOT / "build" / "tfx")
    os.environ["TFX_BINARY"] = env_binary
    os.environ["PYTHONPATH"] = str(ROOT / "python")
    os.environ.pop("TFX_EMBEDDINGS", None)
    os.environ.pop("TFX_LANG", None)
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    node = nbformat.reads(json.dumps(nb), as_version=4)
    NotebookClient(node, timeout=300, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return normalized(json.loads(nbformat.writes(node)))


def dump(nb):
    return json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


NOTEBOOKS = (("en", "lecture.ipynb"), ("ko", "lecture.ko.ipynb"), ("en", "head_view.ipynb"))

if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "samples"
    for lang, name in NOTEBOOKS:
        (out / name).write_text(dump(execute(stripped(lang, name), ROOT / "samples")), encoding="utf-8")
        print(f"wrote {out / name}")
