"""The texts of the help summary, the review and the rulesets' names (the words themselves are
in the catalogue, :mod:`words`)."""
