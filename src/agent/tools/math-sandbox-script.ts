/** The Python driver of the `math` tool: validates the code, applies limits, runs it and reports JSON. */

/** Modules the model's code may import (top-level names). */
export const MATH_ALLOWED_MODULES: readonly string[] = [
  'math',
  'cmath',
  'fractions',
  'decimal',
  'numbers',
  'statistics',
  'random',
  'itertools',
  'functools',
  'operator',
  'collections',
  'heapq',
  'bisect',
  're',
  'string',
  'datetime',
  'calendar',
  'json',
  'copy',
  'typing',
  'dataclasses',
  'enum',
  'textwrap',
  'array',
  'sympy',
  'numpy',
  'scipy',
  'mpmath',
];

/**
 * Run as `python3 -I -c SCRIPT <memory bytes> <cpu seconds> <allowed,modules>` with the code on standard input.
 * Prints one JSON object: {status: ok|error|invalid|syntax, output?, errors?, message?}.
 */
export const MATH_SANDBOX_SCRIPT = String.raw`
import ast, builtins, contextlib, io, json, re, sys, traceback

MEMORY = int(sys.argv[1]); CPU = int(sys.argv[2]); ALLOWED = set(sys.argv[3].split(','))
BLOCKED_CALLS = {'open', 'exec', 'eval', 'compile', 'input', 'breakpoint', 'memoryview', 'globals', 'locals',
                 'vars', 'getattr', 'setattr', 'delattr', 'help', 'exit', 'quit', '__import__'}
ALLOWED_DUNDERS = {'__name__', '__doc__', '__class__'}
code = sys.stdin.read()

def reply(**fields):
    sys.__stdout__.write(json.dumps(fields)); sys.__stdout__.flush(); sys.exit(0)

def is_dunder(name):
    return name.startswith('__') and name.endswith('__') and name not in ALLOWED_DUNDERS

def auto_print(tree):
    if 'print(' in code or re.search(r'^\s*result\s*=', code, re.M):
        return tree
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        call = ast.Call(func=ast.Name(id='print', ctx=ast.Load()), args=[last.value], keywords=[])
        tree.body[-1] = ast.copy_location(ast.Expr(value=call), last)
        ast.fix_missing_locations(tree)
    return tree

def validate(tree):
    errors = []
    for node in ast.walk(tree):
        line = getattr(node, 'lineno', '?')
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split('.')[0]
                if top not in ALLOWED:
                    errors.append(f"line {line}: import of '{top}' is not allowed (allowed: {', '.join(sorted(ALLOWED))})")
        elif isinstance(node, ast.ImportFrom):
            top = (node.module or '').split('.')[0]
            if node.level or top not in ALLOWED:
                errors.append(f"line {line}: import from '{node.module or '.'}' is not allowed (allowed: {', '.join(sorted(ALLOWED))})")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BLOCKED_CALLS:
            errors.append(f"line {line}: calling {node.func.id}() is not allowed")
        elif isinstance(node, ast.Attribute) and is_dunder(node.attr):
            errors.append(f"line {line}: access to attribute '{node.attr}' is not allowed")
        elif isinstance(node, ast.Name) and is_dunder(node.id):
            errors.append(f"line {line}: use of '{node.id}' is not allowed")
    return errors

try:
    tree = ast.parse(code, '<math>')
except SyntaxError as e:
    lines = code.splitlines()
    text = lines[e.lineno - 1] if e.lineno and 0 < e.lineno <= len(lines) else ''
    caret = ' ' * max((e.offset or 1) - 1, 0) + '^'
    reply(status='syntax', message=f"Syntax error on line {e.lineno}: {e.msg}\n{text}\n{caret}")
errors = validate(tree)
if errors:
    reply(status='invalid', errors=errors)
tree = auto_print(tree)

real_import = builtins.__import__
def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level or name.split('.')[0] not in ALLOWED:
        raise ImportError(f"import of '{name}' is not allowed in math")
    return real_import(name, globals, locals, fromlist, level)

safe_builtins = {k: v for k, v in builtins.__dict__.items() if k not in BLOCKED_CALLS}
safe_builtins['__import__'] = guarded_import
namespace = {'__builtins__': safe_builtins, '__name__': '__main__'}
import math, fractions, itertools, functools, operator, collections, decimal, random, string
namespace.update(math=math, fractions=fractions, Fraction=fractions.Fraction, itertools=itertools,
                 functools=functools, operator=operator, collections=collections, decimal=decimal,
                 Decimal=decimal.Decimal, random=random, re=re, string=string)
names = set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', code))
SYMPY_NAMES = ['symbols', 'Symbol', 'solve', 'simplify', 'expand', 'factor', 'Eq', 'sqrt', 'Rational', 'pi', 'E',
               'I', 'oo', 'sin', 'cos', 'tan', 'exp', 'log', 'factorial', 'binomial', 'gcd', 'lcm', 'prime',
               'isprime', 'factorint', 'divisors', 'totient', 'mod_inverse', 'Matrix', 'integrate', 'diff',
               'limit', 'series', 'Sum', 'Product', 'floor', 'ceiling', 'Abs', 'nsimplify', 'N']
wanted = [n for n in SYMPY_NAMES if n in names]
if wanted or 'sympy' in names:
    try:
        import sympy
        namespace['sympy'] = sympy
        namespace.update({n: getattr(sympy, n) for n in wanted})
    except ImportError:
        pass
if names & {'np', 'numpy'}:
    try:
        import numpy
        namespace.update(np=numpy, numpy=numpy)
    except ImportError:
        pass
if names & {'scipy', 'special', 'optimize', 'comb', 'perm', 'gamma', 'beta'}:
    try:
        import scipy, scipy.special, scipy.optimize
        namespace.update(scipy=scipy, special=scipy.special, optimize=scipy.optimize, comb=scipy.special.comb,
                         perm=scipy.special.perm, gamma=scipy.special.gamma, beta=scipy.special.beta)
    except ImportError:
        pass
if hasattr(sys, 'set_int_max_str_digits'):
    sys.set_int_max_str_digits(100000)
try:
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU, CPU + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
except (ImportError, ValueError, OSError):
    pass

buffer = io.StringIO()
try:
    compiled = compile(tree, '<math>', 'exec')
    with contextlib.redirect_stdout(buffer):
        exec(compiled, namespace)
except MemoryError:
    reply(status='error', output=buffer.getvalue()[-4000:], message='MemoryError: the computation exceeded the memory limit')
except BaseException as e:
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == '<math>']
    where = ''.join(traceback.format_list(frames))
    reply(status='error', output=buffer.getvalue()[-4000:], message=f"{type(e).__name__}: {e}\n{where}".rstrip())
output = buffer.getvalue().rstrip()
if 'result' in namespace:
    output = f"{output}\nresult = {namespace['result']}" if output else str(namespace['result'])
reply(status='ok', output=output)
`;
