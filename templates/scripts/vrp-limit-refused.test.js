/* global obflowBody */
// A payment that breaches the mandate ({{js why}}) must be refused: "When a payment would breach a limitation set by
// one or more ControlParameters, the ASPSP must return an error with code U014 and pass in the control parameter field
// that caused the error" (VRP v4.0 domestic-vrps; v3.1.11 lists UK.OBIE.Rules.FailsControlParameters). Passes only
// when the bank refuses: a 201 here is a payment made past the limit. Adds the refusal to vrp_walk.
const env = pm.environment;
const refusals = JSON.parse('{{js refusals}}');
const pathRequired = JSON.parse('{{js pathRequired}}');
let body = {};
try {
  body = obflowBody() || {};
} catch {
  body = {};
}
const errors = (body.Errors || []).filter(Boolean);
const codes = errors.map(function (error) {
  return error.ErrorCode;
});

pm.test(
  '{{js amount}} {{js currency}} breaches {{js limit}} ({{js limitLabel}}): the bank refuses it (' +
    refusals.join(' or ') +
    ') and makes no payment',
  function () {
    pm.expect(pm.response.code, 'a payment past the limit was accepted').to.be.oneOf(refusals);
    pm.expect((body.Data || {}).DomesticVRPId, 'DomesticVRPId').to.equal(undefined);
  },
);
pm.test('the refusal of {{js amount}} {{js currency}} ({{js limit}}) carries {{js code}}', function () {
  pm.expect(codes, 'ErrorCode').to.include('{{js code}}');
});
const paths = errors
  .filter(function (error) {
    return error.ErrorCode === '{{js code}}' && typeof error.Path === 'string';
  })
  .map(function (error) {
    return error.Path;
  });
if (pathRequired || paths.length > 0) {
  // The member at fault: MaximumIndividualAmount, or a periodic limit (PeriodicLimits, any entry: a bank may name the
  // one it counted first when several are crossed).
  const member = '{{js limit}}'.replace(/\[\d+\]$/, '');
  pm.test('the refusal names the control parameter {{js limit}} in Path', function () {
    pm.expect(
      paths.some(function (path) {
        return path.indexOf(member) >= 0;
      }),
      'Path ' + paths.join(', '),
    ).to.equal(true);
  });
}
const walk = JSON.parse(env.get('vrp_walk') || '[]');
walk.push({
  Amount: '{{js amount}}',
  Currency: '{{js currency}}',
  Outcome: pm.response.code === 201 ? 'made' : 'refused',
  Limit: '{{js limit}}',
  ErrorCode: codes.join(', '),
});
env.set('vrp_walk', JSON.stringify(walk));
