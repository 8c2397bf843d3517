"""Request and response bodies of the HTTP API (pydantic lives only in this package)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictStr

from ..online import MAX_ID_LENGTH


def _unicode(value: str) -> str:
    """JSON can carry lone surrogates (``"\\ud800"``); no text or id of ours can hold one."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"holds an unpaired surrogate at position {exc.start}; send valid Unicode"
        ) from None
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("text is empty")
    return value


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("holds a NUL character; ids cannot (PostgreSQL's text cannot hold one)")
    return value


Text = Annotated[StrictStr, AfterValidator(_unicode), AfterValidator(_not_blank)]
Id = Annotated[StrictStr, AfterValidator(_unicode), AfterValidator(_no_nul)]


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Id = Field(min_length=1, max_length=MAX_ID_LENGTH, description="document id")
    text: Text = Field(description="document text (non-empty after trimming)")


class CheckIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: Text
    id: Id | None = Field(default=None, max_length=MAX_ID_LENGTH)


class BatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    documents: list[DocumentIn] = Field(
        min_length=1, max_length=10_000, description="each id once (checked by the detector)"
    )


class MatchOut(BaseModel):
    id: str
    distance: int | None = Field(description="Hamming distance of the fingerprints (simhash)")
    similarity: float | None = Field(
        description="verified Jaccard similarity (ngram, auto) or share of paragraphs (paragraph)"
    )
    method: str


class CheckOut(BaseModel):
    duplicate: bool
    matches: list[MatchOut]


class DocumentResult(CheckOut):
    id: str
    inserted: bool
    status: str = Field(description="inserted | replaced | unchanged | duplicate_not_stored")


class BatchOut(BaseModel):
    results: list[DocumentResult]


class StoredOut(BaseModel):
    id: str
    fingerprint: str = Field(description="64-bit SimHash, 16 hex digits")
    length: int
    duplicate_of: str | None
    added_at: float


class ErrorOut(BaseModel):
    error: str
    detail: list[dict] | None = None
