import os
from . import util
from .main import (a, b,
   c)  # x
@dec
class Foo(Base):
    """Doc."""
    def bar(self, x: int) -> str:
        def inner(): pass
        return x
    @property
    async def baz(self): ...
def top(a,
        b):
    pass
