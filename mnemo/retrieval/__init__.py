"""Retrieval: lexical and dense candidates, fusion, scoring, diversity, and the pipeline."""
