"""The results pager: only the entries a page shows, the same as looking at every page."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sitegen.output.pages import PagerItem, pager


def every_page(urls: list[str], number: int) -> list[PagerItem]:
    """The rule walked over every page: first and last two, two either side, a gap after 2 and before n - 1."""
    n, items = len(urls), []
    for i, u in enumerate(urls, start=1):
        if i == number:
            items.append(PagerItem(i, u, True))
        elif i <= 2 or i > n - 2 or abs(i - number) <= 2:
            items.append(PagerItem(i, u))
        elif i == 3 or i == n - 2:
            items.append(PagerItem(i, None))
    return items


@given(st.integers(1, 80).flatmap(lambda n: st.tuples(st.just(n), st.integers(1, n))))
def test_pager_matches_the_rule_over_every_page(case):
    n, number = case
    urls = [f"results/{k}/" for k in range(1, n + 1)]
    assert pager(urls, number) == every_page(urls, number)


def test_pager_of_many_pages_has_gaps():
    urls = [f"p{k}" for k in range(1, 5001)]
    shown = pager(urls, 2500)
    assert [p.number for p in shown] == [1, 2, 3, 2498, 2499, 2500, 2501, 2502, 4998, 4999, 5000]
    assert [p.url is None for p in shown] == [False, False, True] + [False] * 5 + [True, False, False]
    assert [p.number for p in shown if p.current] == [2500]
