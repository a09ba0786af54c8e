// DELETE /domestic-vrp-consents/{ConsentId}: 204 has no body (the files define none).
pm.test('the deleted consent answers no body', function () {
  pm.expect(pm.response.text()).to.equal('');
});
pm.environment.set('vrp_consent_status', 'deleted');
