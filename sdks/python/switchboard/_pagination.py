"""Cursor pagination: a Page holds one page ({data, has_more, next_cursor}); auto_paging_iter()
walks every item of every page, fetching the next page only when the previous one is used up."""
from __future__ import annotations

from typing import Any, Callable, Dict, Generic, Iterator, List, Optional, TypeVar

T = TypeVar("T")


class Page(Generic[T]):
    def __init__(self, *, data: List[T], has_more: bool, next_cursor: Optional[str], last_response: Any,
                 fetch: Callable[[Dict[str, Any]], "Page[T]"], params: Dict[str, Any]) -> None:
        self.data = data
        self.has_more = has_more
        self.next_cursor = next_cursor
        self.last_response = last_response
        self._fetch = fetch
        self._params = params

    def next_page(self) -> Optional["Page[T]"]:
        if not self.has_more or not self.next_cursor:
            return None
        return self._fetch({**self._params, "starting_after": self.next_cursor})

    def auto_paging_iter(self) -> Iterator[T]:
        page: Optional[Page[T]] = self
        while page is not None:
            yield from page.data
            page = page.next_page()

    def __iter__(self) -> Iterator[T]:
        """Iterates this page's items only; use auto_paging_iter() for every page."""
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)
