"""Reference tables (docs/tables.md) from Python, over libcradle's
cradle/table.h: cradle.table.make (`cradle table make`) and
cradle.table.lookup (`cradle table lookup`)."""
from .api import table_lookup as lookup, table_make as make

__all__ = ["make", "lookup"]
