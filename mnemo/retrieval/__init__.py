"""Retrieval: lexical and dense candidates, fusion, the ranking signals, scoring, diversity,
and the pipeline that runs them."""
