"""The JSON beside each CSV is written row by row; it must read exactly as one json.dumps would."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from sitegen.model.ledger import to_json

CELL = st.one_of(st.none(), st.integers(-10**6, 10**6), st.text(max_size=12),
                 st.floats(allow_nan=False, allow_infinity=False, width=64))


@given(st.lists(st.tuples(CELL, CELL, CELL), max_size=6))
def test_json_rows_read_as_one_dump(rows):
    header = ("player", "rating", "note")
    text = to_json((header, rows))
    objects = [dict(zip(header, (round(v, 6) + 0.0 if isinstance(v, float) else v for v in row))) for row in rows]
    assert text == json.dumps(objects, ensure_ascii=False, indent=1) + "\n"
    assert json.loads(text) == objects
