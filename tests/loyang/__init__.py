"""Tests of At the Gates of Loyang: rules, data, wire forms, bots."""
