"""Arithmetic, sums and products (NumPy's "Mathematical functions" and "Linear algebra")."""

from gpupy._gpupy import add, divide, dot, matmul, multiply, subtract, sum

true_divide = divide

__all__ = ["add", "subtract", "multiply", "divide", "true_divide", "sum", "dot", "matmul"]
