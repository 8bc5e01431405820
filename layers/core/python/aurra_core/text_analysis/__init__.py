"""Text analysis shared by search, the rules classifier and the rules extractor: one
normaliser, tokenizer and stemmer, the rules' word lists, the kinds lexicon and its generated
index, what a search's question asks for (`questions`), the topic gate's medical and legal
lexicon, the credentials a write must not keep (`credentials`), and regular expressions stored
compiled ahead of time.

Imports run one way: plain code on the standard library; nothing here stores, calls a model
or imports another part of the layer.
"""
