"""Adapters that plug mnemo into agent frameworks, each behind its own optional extra.

``mnemo.integrations.langchain`` (``pip install "mnemo-ltm[langchain]"``): a LangChain
retriever and remember/recall tools over a :class:`mnemo.Memory`. Nothing here is imported by
``import mnemo``; import the adapter module itself.
"""
